import { PageHeader } from '../../components/PageHeader';

export function CreateInstancePage() {
  return <PageHeader title="Create instance" description="Start a new PostgreSQL or etcd instance, optionally in one of your groups." />;
}
