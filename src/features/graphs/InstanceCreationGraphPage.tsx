import { PageHeader } from '../../components/PageHeader';

export function InstanceCreationGraphPage() {
  return <PageHeader title="Instance creation" description="How many instances were created over time." />;
}
