import { PageHeader } from '../../components/PageHeader';

export function ClientsPage() {
  return <PageHeader title="Clients" description="Downloads of the Warden command-line client for Windows and containers." />;
}
