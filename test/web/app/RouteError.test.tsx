import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { createMemoryRouter, Link, RouterProvider, type RouteObject } from 'react-router-dom';
import { currentPage, reloadOnceFor } from '../../../src/app/buildId';
import { retryable } from '../../../src/app/chunkRetry';
import { RouteError } from '../../../src/app/RouteError';
import { setupMsw } from '../msw';

const server = setupMsw();
jest.setTimeout(15_000);

/** webpack's error for a chunk the server did not send. */
const chunkLoadError = () => Object.assign(new Error('Loading chunk 8577 failed.\n(error: http://localhost/static/js/8577.chunk.js)'), { name: 'ChunkLoadError' });

const indexHtml = (build?: string) =>
  `<!doctype html><html><head>${build ? `<meta name="warden-build" content="${build}" />` : ''}<title>Warden</title></head><body></body></html>`;

/** GET /index.html: away (a network error) until `back()`, then the index of `build`. */
function serverAway(build?: string) {
  const server$ = { up: false, asked: 0 };
  server.use(
    http.get('/index.html', () => {
      server$.asked += 1;
      return server$.up ? new HttpResponse(indexHtml(build), { headers: { 'Content-Type': 'text/html' } }) : HttpResponse.error();
    }),
  );
  return { ...server$, back: () => void (server$.up = true), asked: () => server$.asked };
}

/** A screen whose download fails `failures` times, then succeeds. */
function flakyScreen(failures: number) {
  const downloads = { count: 0 };
  const load = retryable(async () => {
    downloads.count += 1;
    if (downloads.count <= failures) throw chunkLoadError();
    return { Component: () => <h1>Groups</h1> };
  });
  return { load, downloads };
}

const Home = () => (
  <>
    <h1>Instances</h1>
    <Link to="/groups">Groups</Link>
  </>
);

function renderRoutes(children: RouteObject[], path = '/instances') {
  const router = createMemoryRouter([{ id: 'root', ErrorBoundary: RouteError, children }], { initialEntries: [path] });
  render(<RouterProvider router={router} />);
  return { router };
}

const setBuild = (build: string | null) => {
  document.head.querySelector('meta[name="warden-build"]')?.remove();
  if (build) document.head.insertAdjacentHTML('beforeend', `<meta name="warden-build" content="${build}" />`);
};

let reload: jest.SpyInstance;
beforeEach(() => {
  sessionStorage.clear();
  setBuild(null);
  reload = jest.spyOn(currentPage, 'reload').mockImplementation(() => {});
  jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

describe('a screen whose code cannot be downloaded (the server restarting)', () => {
  it('shows that Warden is restarting and goes on by itself once the server answers', async () => {
    const away = serverAway();
    const { load, downloads } = flakyScreen(1);
    const { router } = renderRoutes([
      { path: '/instances', Component: Home },
      { path: '/groups', lazy: load },
    ]);
    await userEvent.click(await screen.findByRole('link', { name: 'Groups' }));

    expect(await screen.findByRole('heading', { name: 'Warden is restarting — reconnecting…' })).toBeInTheDocument();
    expect(screen.queryByText(/Unexpected Application Error/)).not.toBeInTheDocument();
    expect(screen.queryByText(/Loading chunk/)).not.toBeInTheDocument();
    await waitFor(() => expect(away.asked()).toBeGreaterThanOrEqual(1));
    expect(downloads.count).toBe(1); // not tried again while the server does not answer

    away.back();
    expect(await screen.findByRole('heading', { name: 'Groups' }, { timeout: 6000 })).toBeInTheDocument();
    expect(downloads.count).toBe(2);
    expect(router.state.location.pathname).toBe('/groups');
    expect(reload).not.toHaveBeenCalled();
  });

  it('reloads the page once when the server answers with a newer build', async () => {
    setBuild('build-1');
    const away = serverAway('build-2');
    away.back();
    const { load, downloads } = flakyScreen(1);
    renderRoutes([{ path: '/groups', lazy: load }], '/groups');

    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(downloads.count).toBe(1); // this build's files are gone: no point asking for them
    expect(sessionStorage.getItem('warden.reloadedForBuild')).toBe('build-2');
  });

  it('does not reload again for a build it already reloaded for, and says what happened', async () => {
    setBuild('build-1');
    sessionStorage.setItem('warden.reloadedForBuild', 'build-2');
    serverAway('build-2').back();
    const { load } = flakyScreen(1);
    renderRoutes([{ path: '/groups', lazy: load }], '/groups');

    expect(await screen.findByRole('heading', { name: 'Warden was updated' })).toBeInTheDocument();
    expect(reload).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
  });
});

describe('reloadOnceFor', () => {
  it('reloads once per build, never in a loop', () => {
    const memory = new Map<string, string>();
    const storage = { getItem: (key: string) => memory.get(key) ?? null, setItem: (key: string, value: string) => void memory.set(key, value) };
    const reloads = jest.fn();
    expect(reloadOnceFor('b2', storage, reloads)).toBe(true);
    expect(reloadOnceFor('b2', storage, reloads)).toBe(false);
    expect(reloadOnceFor('b2', storage, reloads)).toBe(false);
    expect(reloads).toHaveBeenCalledTimes(1);
    // A later build is a new reason to reload, once.
    expect(reloadOnceFor('b3', storage, reloads)).toBe(true);
    expect(reloads).toHaveBeenCalledTimes(2);
  });
});

describe('any other failure of a screen', () => {
  it('shows the message, a Reload button and a way back, and logs it', async () => {
    const Broken = () => {
      throw new Error('Cannot read properties of undefined (reading "items")');
    };
    renderRoutes([{ path: '/groups', Component: Broken }, { path: '/instances', Component: Home }], '/groups');

    expect(await screen.findByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Cannot read properties of undefined (reading "items")');
    expect(screen.queryByText(/Unexpected Application Error/)).not.toBeInTheDocument();
    expect(console.error).toHaveBeenCalledWith('The screen failed:', expect.any(Error));

    await userEvent.click(screen.getByRole('button', { name: 'Reload' }));
    expect(reload).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('link', { name: 'Back to instances' }));
    expect(await screen.findByRole('heading', { name: 'Instances' })).toBeInTheDocument();
  });

  it('names the request that failed when the error carries its id', async () => {
    const failing = () => {
      throw Object.assign(new Error('Request failed'), { data: { title: 'Internal Server Error', requestId: 'req-7f3a' } });
    };
    renderRoutes([{ path: '/groups', loader: failing, Component: Home }], '/groups');
    expect(await screen.findByText('Request id: req-7f3a')).toBeInTheDocument();
  });
});
