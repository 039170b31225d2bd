import { screen, within } from '@testing-library/react';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { instanceScreensAtRest } from '../../handlers/instancesHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

const server = setupMsw();

async function sidebarOf(user: typeof admin, path = '/instances') {
  server.use(meHandler(user), ...instanceScreensAtRest());
  renderApp(path);
  return within(await screen.findByRole('navigation', { name: 'Main' }));
}

const linkNames = (nav: ReturnType<typeof within>) =>
  nav.getAllByRole('link').map((link: HTMLElement) => link.getAttribute('aria-label'));

describe('Sidebar', () => {
  it('shows an admin every entry, Users and Debug included', async () => {
    const nav = await sidebarOf(admin);
    expect(linkNames(nav)).toEqual(['Instances', 'Groups', 'Logs', 'Backups', 'Clients', 'Users', 'Audit', 'Hosts', 'Debug', 'Profile']);
    expect(nav.getByRole('link', { name: 'Users' })).toHaveAttribute('href', '/admin/users');
    expect(nav.getByRole('link', { name: 'Debug' })).toHaveAttribute('href', '/debug');
    expect(nav.getByRole('link', { name: 'Audit' })).toHaveAttribute('href', '/admin/audit');
    expect(nav.getByRole('link', { name: 'Hosts' })).toHaveAttribute('href', '/admin/hosts');
  });

  it('hides Users and Debug from a regular user', async () => {
    const nav = await sidebarOf(regular);
    expect(linkNames(nav)).toEqual(['Instances', 'Groups', 'Logs', 'Backups', 'Clients', 'Profile']);
    expect(nav.queryByRole('link', { name: 'Users' })).not.toBeInTheDocument();
    expect(nav.queryByRole('link', { name: 'Debug' })).not.toBeInTheDocument();
    expect(nav.queryByRole('link', { name: 'Audit' })).not.toBeInTheDocument();
    expect(nav.queryByRole('link', { name: 'Hosts' })).not.toBeInTheDocument();
  });

  it('marks the current screen, also below it', async () => {
    const nav = await sidebarOf(regular, '/instances/42/script');
    await screen.findByRole('heading', { level: 1, name: 'Script' });
    expect(nav.getByRole('link', { name: 'Instances' })).toHaveAttribute('aria-current', 'page');
    expect(nav.getByRole('link', { name: 'Groups' })).not.toHaveAttribute('aria-current');
  });

  it('shows who is signed in, a way out and the theme choice', async () => {
    const nav = await sidebarOf(regular);
    expect(nav.getByText(regular.email)).toBeInTheDocument();
    expect(nav.getByRole('button', { name: 'Log out' })).toBeInTheDocument();
    // jsdom matches no media query, so the narrow sidebar puts the selector behind its icon.
    expect(nav.getByRole('button', { name: 'Theme' })).toBeInTheDocument();
  });
});
