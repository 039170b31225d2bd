import { InstanceBackupsPage } from './InstanceBackupsPage';

export function InstanceFileBackupsPage() {
  return <InstanceBackupsPage kind="file" />;
}
