import { List, Stack, Text } from '@chakra-ui/react';
import { routePath } from '../../../contracts/routes';
import { DateTime } from '../../components/DateTime';
import { Facts } from '../../components/Facts';
import { ErrorState, LoadingState } from '../../components/ListStates';
import { PageHeader } from '../../components/PageHeader';
import { RoleBadge } from '../../components/RoleBadge';
import { Section } from '../../components/Section';
import { TextLink } from '../../components/TextLink';
import { useProfileQuery } from '../auth/authApi';
import { EmailSection } from './EmailSection';
import { PasswordSection } from './PasswordSection';
import { TwoFactorSection } from './TwoFactorSection';

export function ProfilePage() {
  const { data: profile, isLoading, refetch } = useProfileQuery();

  return (
    <>
      <PageHeader title="Profile" description="Your account, its sign-in security and the groups you belong to." />
      {isLoading ? (
        <LoadingState label="Loading your profile…" />
      ) : !profile ? (
        <ErrorState title="Could not load your profile." onRetry={refetch} />
      ) : (
        <Stack gap="6" maxW="3xl">
          <Section title="Account">
            <Facts
              items={[
                ['Role', <RoleBadge role={profile.role} />],
                ['Member since', <DateTime value={profile.createdAt} />],
                ['Last sign-in', <DateTime value={profile.lastLoginAt} fallback="Never" />],
              ]}
            />
          </Section>
          <EmailSection email={profile.email} confirmed={profile.emailConfirmed} />
          <PasswordSection />
          <TwoFactorSection email={profile.email} enabled={profile.twoFactorEnabled} />
          <Section title="Groups" description="Your groups decide which instances you see.">
            {profile.groups.length === 0 ? (
              <Text color="fg.muted">You are not a member of any group.</Text>
            ) : (
              <List.Root aria-label="Your groups" gap="1" ps="5">
                {profile.groups.map((group) => (
                  <List.Item key={group.id}>
                    <TextLink to={routePath('group', { id: group.id })}>{group.name}</TextLink>
                  </List.Item>
                ))}
              </List.Root>
            )}
          </Section>
        </Stack>
      )}
    </>
  );
}
