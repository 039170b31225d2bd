import { PageHeader } from '../../components/PageHeader';

export function InstanceDatabaseBackupsPage() {
  return <PageHeader title="Database backups" description="Dumps and snapshots of the instance’s data, to download or to clone from." />;
}
