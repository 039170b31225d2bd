import { PageHeader } from '../../components/PageHeader';

export function GroupPage() {
  return <PageHeader title="Group" description="The members and instances of one group." />;
}
