import { PageHeader } from '../../components/PageHeader';

export function InstancePage() {
  return <PageHeader title="Instance" description="Status, health, connection details and operations of one instance." />;
}
