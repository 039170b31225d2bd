import { PageHeader } from '../../components/PageHeader';
import { LogsView } from './LogsView';

/** /logs (SPEC §2): every entry the caller may see, one timeline across instances and the control plane. */
export function LogsPage() {
  return (
    <>
      <PageHeader title="Logs" description="Log entries of the control plane and of every instance you may see, live." />
      <LogsView />
    </>
  );
}
