import { PageHeader } from '../../components/PageHeader';

export function EditConfigurationPage() {
  return <PageHeader title="Configuration" description="The instance’s parameters; every saved change becomes a revision you can restore." />;
}
