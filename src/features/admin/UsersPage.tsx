import { PageHeader } from '../../components/PageHeader';

export function UsersPage() {
  return <PageHeader title="Users" description="Everyone who can sign in, with their role and whether they are enabled." />;
}
