import { PageHeader } from '../../components/PageHeader';

export function BackupsPage() {
  return <PageHeader title="Backups" description="Backups of every instance you can reach, newest first." />;
}
