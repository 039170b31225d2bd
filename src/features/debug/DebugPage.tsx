import { PageHeader } from '../../components/PageHeader';

export function DebugPage() {
  return <PageHeader title="Debug" description="Server facts, a ping and test events for checking the console’s connection." />;
}
