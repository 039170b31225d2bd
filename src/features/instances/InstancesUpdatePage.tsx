import { PageHeader } from '../../components/PageHeader';

export function InstancesUpdatePage() {
  return <PageHeader title="Instances update" description="Instances whose engine has a newer version, ready to update." />;
}
