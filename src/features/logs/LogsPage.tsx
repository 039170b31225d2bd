import { PageHeader } from '../../components/PageHeader';

export function LogsPage() {
  return <PageHeader title="Logs" description="Log entries of the control plane and of every instance, by level and source." />;
}
