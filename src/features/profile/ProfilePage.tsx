import { PageHeader } from '../../components/PageHeader';

export function ProfilePage() {
  return <PageHeader title="Profile" description="Your account, its sign-in security and the groups you belong to." />;
}
