import { useParams } from 'react-router-dom';
import { PointInTimeSection } from '../pitr/PointInTimeSection';
import { InstanceBackupsPage } from './InstanceBackupsPage';

export function InstanceDatabaseBackupsPage() {
  const { id = '' } = useParams();
  return (
    <InstanceBackupsPage kind="database">
      <PointInTimeSection instanceId={id} />
    </InstanceBackupsPage>
  );
}
