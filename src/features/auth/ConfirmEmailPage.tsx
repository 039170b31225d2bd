import { Stack, Text } from '@chakra-ui/react';
import { useSearchParams } from 'react-router-dom';
import { routes } from '../../../contracts/routes';
import { useAppSelector } from '../../app/hooks';
import { ErrorState, LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { TextLink } from '../../components/TextLink';
import { useConfirmEmailQuery } from './authApi';
import { PublicPage } from './PublicPage';
import { selectCurrentUser } from './selectors';

/** Where the confirmation e-mail's link lands: it confirms the address (or a changed one) and says how that went. */
export function ConfirmEmailPage() {
  const [searchParams] = useSearchParams();
  const userId = searchParams.get('userId') ?? '';
  const code = searchParams.get('code') ?? '';
  const changedEmail = searchParams.get('changedEmail') ?? undefined;
  const complete = userId !== '' && code !== '';
  const { data, isLoading, isError, refetch } = useConfirmEmailQuery(
    { userId, code, ...(changedEmail && { changedEmail }) },
    { skip: !complete },
  );
  // A link opened in a signed-in browser leads on to the profile, otherwise to sign in.
  const signedIn = useAppSelector(selectCurrentUser) !== null;
  const next = signedIn ? (
    <TextLink to={routes.profile.path}>Go to your profile</TextLink>
  ) : (
    <TextLink to={routes.login.path}>Sign in</TextLink>
  );

  if (!complete) {
    return (
      <PublicPage title="Confirm e-mail" footer={next}>
        <Notice status="error" title="This link is incomplete.">
          Open the link from the e-mail again, or copy all of it into the address bar.
        </Notice>
      </PublicPage>
    );
  }
  if (isLoading) {
    return (
      <PublicPage title="Confirm e-mail">
        <LoadingState label="Confirming your e-mail address…" />
      </PublicPage>
    );
  }
  if (isError || !data) {
    return (
      <PublicPage title="Confirm e-mail" footer={next}>
        <ErrorState title="Could not confirm your e-mail address." onRetry={refetch} />
      </PublicPage>
    );
  }
  if (!data.confirmed) {
    return (
      <PublicPage title="Confirm e-mail" footer={next}>
        <Stack gap="3">
          <Notice status="error" title="This confirmation link is invalid or has expired." />
          <Text color="fg.muted" fontSize="sm">
            {signedIn ? 'Send yourself a new link from your profile.' : 'Sign in and send yourself a new link from your profile.'}
          </Text>
        </Stack>
      </PublicPage>
    );
  }
  return (
    <PublicPage title="E-mail confirmed" footer={next}>
      <Notice title={changedEmail ? `Your e-mail address is now ${changedEmail}.` : 'Your e-mail address is confirmed.'} />
    </PublicPage>
  );
}
