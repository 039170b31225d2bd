import { PageHeader } from '../../components/PageHeader';

export function InstancesPage() {
  return <PageHeader title="Instances" description="Every PostgreSQL and etcd instance you can reach, with its status and health." />;
}
