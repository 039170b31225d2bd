import { InstanceBackupsPage } from './InstanceBackupsPage';

export function InstanceDatabaseBackupsPage() {
  return <InstanceBackupsPage kind="database" />;
}
