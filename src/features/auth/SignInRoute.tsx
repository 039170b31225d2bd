import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { DeferredOverlays } from '../ui/DeferredOverlays';
import { usePrefetchLink } from '../ui/usePrefetchLink';
import { authApi } from './authApi';
import { LoginPage, type AccountLink } from './LoginPage';
import { safeReturnUrl } from './returnUrl';

/** A link to another account screen through the router; its chunk starts loading on hover or focus. */
const RouterLink: AccountLink = ({ to, children }) => (
  <Link to={to} {...usePrefetchLink(to)}>
    {children}
  </Link>
);

/**
 * The sign-in page inside the console, where a session that ends (log out, expiry, a disabled account)
 * leads, with the console's overlays: the toast saying why the session ended shows over it. Once signed
 * in, the current user is read again and the person goes back where they were.
 */
export function SignInRoute() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const signedIn = async () => {
    await dispatch(authApi.endpoints.me.initiate(undefined, { forceRefetch: true, subscribe: false }));
    await navigate(safeReturnUrl(searchParams.get('returnUrl')), { replace: true });
  };
  return (
    <>
      <LoginPage onSignedIn={signedIn} Link={RouterLink} />
      <DeferredOverlays />
    </>
  );
}
