import { PageHeader } from '../../components/PageHeader';

export function GroupsPage() {
  return <PageHeader title="Groups" description="Groups decide who may see and act on which instances." />;
}
