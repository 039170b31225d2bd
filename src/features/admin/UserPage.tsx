import { PageHeader } from '../../components/PageHeader';

export function UserPage() {
  return <PageHeader title="User" description="One account: its role, its state and its password." />;
}
