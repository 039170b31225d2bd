import { Section } from '../../components/Section';
import { LogsView } from '../logs/LogsView';

/** The instance's log entries, live: the Logs screen's viewer with the instance fixed (filters under `log…` in the URL). */
export function LogsSection({ instanceId }: { instanceId: string }) {
  return (
    <Section title="Recent logs" description="Newest first; new entries appear as they are written.">
      <LogsView instanceId={instanceId} prefix="log" />
    </Section>
  );
}
