import { PageHeader } from '../../components/PageHeader';

export function InstanceScriptPage() {
  return <PageHeader title="Script" description="The instance’s saved script, run against a throwaway copy so the instance itself never changes." />;
}
