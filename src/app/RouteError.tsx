import { useEffect, useState, type ReactNode } from 'react';
import { isRouteErrorResponse, Link, useLocation, useNavigate, useRouteError } from 'react-router-dom';
import { routes } from '../../contracts/routes';
import { currentBuildId, currentPage, reloadOnceFor, serverBuildId } from './buildId';
import { ScreenUnavailable } from './chunkRetry';

/** How often the server is asked whether it is back while a screen waits for its code. */
export const serverPollMs = 2000;

// Plain elements and a few styles, not Chakra: this screen is in the first download, beside sign-in.
const pageStyle = {
  minHeight: '100vh',
  display: 'grid',
  placeItems: 'center',
  padding: '2rem',
  fontFamily: 'system-ui, sans-serif',
} as const;
const cardStyle = { maxWidth: '36rem', display: 'grid', gap: '0.75rem' } as const;

function Page({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main style={pageStyle}>
      <div style={cardStyle}>
        <h1 style={{ margin: 0, fontSize: '1.5rem' }}>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** The id the server gave the request that failed, when the error came from one and carries it. */
function requestIdOf(error: unknown): string | undefined {
  const carriers = [error, isRouteErrorResponse(error) ? error.data : (error as { data?: unknown } | null)?.data];
  for (const carrier of carriers) {
    const id = (carrier as { requestId?: unknown } | null | undefined)?.requestId;
    if (typeof id === 'string' && id) return id;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  if (isRouteErrorResponse(error)) {
    const detail = (error.data as { detail?: unknown } | null)?.detail;
    return typeof detail === 'string' ? detail : `${error.status} ${error.statusText}`.trim();
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Any other failure of a screen: what happened, a way to try again and a way back. */
function Failure({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const requestId = requestIdOf(error);
  useEffect(() => console.error('The screen failed:', error), [error]);
  return (
    <Page title={title}>
      <p role="alert" style={{ margin: 0 }}>
        {messageOf(error)}
      </p>
      {requestId && <p style={{ margin: 0 }}>Request id: {requestId}</p>}
      <p style={{ display: 'flex', gap: '1rem', alignItems: 'center', margin: 0 }}>
        <button type="button" onClick={() => currentPage.reload()}>
          Reload
        </button>
        <Link to={routes.instances.path}>Back to instances</Link>
      </p>
    </Page>
  );
}

/**
 * A screen's code could not be downloaded: the server is away (a restart, an upgrade). Asks it
 * every few seconds: not the hub, whose link ends with the layout this page replaces. When it
 * answers with this page's build, the screen's code is downloaded again and the page goes on;
 * with a newer build the page reloads once, at the same address, since this build's files are gone.
 */
function Reconnecting({ error }: { error: ScreenUnavailable }) {
  const navigate = useNavigate();
  const { pathname, search, hash, state } = useLocation();
  const [stuck, setStuck] = useState(false);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = async () => {
      const served = await serverBuildId();
      if (stopped) return;
      const running = currentBuildId();
      if (served !== undefined && served !== null && running !== null && served !== running) {
        if (!reloadOnceFor(served, window.sessionStorage, currentPage.reload)) setStuck(true);
        return;
      }
      if (served !== undefined) {
        try {
          await error.retry();
          // Arriving again at the same address clears the error: the screen renders in its place.
          if (!stopped) await navigate({ pathname, search, hash }, { replace: true, state });
          return;
        } catch {
          // Still unreachable: asked again below.
        }
      }
      if (!stopped) timer = setTimeout(() => void attempt(), serverPollMs);
    };
    void attempt();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [error, navigate, pathname, search, hash, state]);

  if (stuck) return <Failure error={new Error('A newer version of Warden is out, but this page could not load it.')} title="Warden was updated" />;
  return (
    <Page title="Warden is restarting — reconnecting…">
      <p role="status" style={{ margin: 0 }}>
        This page goes on by itself as soon as the server answers again.
      </p>
    </Page>
  );
}

/** The one error element of the app (the root route's): never react-router's default. */
export function RouteError() {
  const error = useRouteError();
  if (error instanceof ScreenUnavailable) return <Reconnecting error={error} />;
  return <Failure error={error} />;
}
