import { PageHeader } from '../../components/PageHeader';

export function InstanceFileBackupsPage() {
  return <PageHeader title="File backups" description="Copies of the instance’s configuration files and server logs." />;
}
