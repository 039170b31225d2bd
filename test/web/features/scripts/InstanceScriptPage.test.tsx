import { EditorView } from '@codemirror/view';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { ScriptRun } from '../../../../contracts/scripts';
import { formatDateTime } from '../../../../src/components/DateTime';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aBackup, backupServer } from '../../handlers/backupsHandlers';
import { anInstance, instanceServer } from '../../handlers/instancesHandlers';
import { aPendingRun, aResult, aScriptRun, scriptServer, summaryOf } from '../../handlers/scriptsHandlers';
import { problem, setupMsw } from '../../msw';
import { renderAppWithHub } from '../realtime/renderAppWithHub';
import { prepareScriptEditor } from './editorSetup';
import { openOptions, pickOption } from '../../pickOption';

const server = setupMsw();
prepareScriptEditor();
jest.setTimeout(30_000);

const orders = anInstance({ id: 'i-1', name: 'orders' });
const olderBackup = aBackup({ id: 'b-1', startedAt: '2025-02-01T03:00:00.000Z', sizeBytes: 1_000_000 });
const newerBackup = aBackup({ id: 'b-2', startedAt: '2025-02-02T03:00:00.000Z', sizeBytes: 2_000_000 });

function openScript(options: Parameters<typeof scriptServer>[0] = {}, instance = orders, backups = [olderBackup, newerBackup]) {
  const scripts = scriptServer(options);
  server.use(
    meHandler(admin),
    ...instanceServer(instance).handlers,
    ...backupServer({ backups }).handlers,
    ...scripts.handlers,
  );
  const user = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
  return { ...renderAppWithHub('/instances/i-1/script'), scripts, user };
}

/** The CodeMirror view behind the labelled editor, once the lazy editor has loaded. */
async function editor(name = 'SQL script') {
  const content = await screen.findByRole('textbox', { name });
  return EditorView.findFromDOM(content)!;
}

/** Types at the end of the document, as a keyboard would (CodeMirror's own input transaction). */
function typeAtEnd(view: EditorView, text: string) {
  act(() => view.dispatch({ changes: { from: view.state.doc.length, insert: text }, userEvent: 'input.type' }));
}

function replaceAll(view: EditorView, text: string) {
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input.type' }));
}

const ctrl = (key: string) => fireEvent.keyDown(screen.getByRole('textbox', { name: 'SQL script' }), { key, ctrlKey: true });
const region = (name: string) => within(screen.getByRole('region', { name }));

describe('InstanceScriptPage', () => {
  it('loads the saved script into the editor and saves an edit with Ctrl+S', async () => {
    const { scripts, store } = openScript();
    const view = await editor();
    expect(view.state.doc.toString()).toBe('select 1;');
    expect(screen.getByText(/Saved/)).toHaveTextContent(`Saved ${formatDateTime('2025-02-03T04:00:00.000Z')} by ada@example.com.`);
    expect(screen.getByRole('button', { name: /Save/ })).toBeDisabled();

    typeAtEnd(view, '\nselect 2;');
    expect(await screen.findByText('Unsaved changes')).toBeInTheDocument();
    ctrl('s');

    await waitFor(() => expect(scripts.bodies).toEqual([{ script: 'select 1;\nselect 2;' }]));
    expect(await screen.findByText('Script saved')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Unsaved changes')).not.toBeInTheDocument());
    expect(screen.getByText(/Saved/)).toHaveTextContent(formatDateTime('2025-02-03T05:00:00.000Z'));
    // The page joined the instance's group for the runs' progress.
    expect(Object.keys(store.getState().realtime.joined)).toContain('Instance(i-1)');
  });

  it('runs with Ctrl+Enter, follows the pushed progress, then shows each statement and the changes', async () => {
    const script = 'create table t (id int);\ninsert into t values (1), (2);\nselect id from t;';
    const app = openScript({ script: { script, updatedAt: null, updatedBy: null } });
    await editor();
    await waitFor(() => expect(app.store.getState().realtime.connection).toBe('Connected'));
    expect(screen.getByText('Not saved yet.')).toBeInTheDocument();
    expect(region('Results').getByText('No runs yet.')).toBeInTheDocument();

    ctrl('Enter');
    await waitFor(() => expect(app.scripts.bodies).toEqual([{ script, source: 'latest-backup', continueOnError: false }]));
    const progress = await screen.findByRole('progressbar', { name: 'Run progress' });
    expect(progress).toHaveAttribute('aria-valuetext', 'Waiting to start');
    expect(screen.getByRole('button', { name: /^Run/ })).toBeDisabled();

    const started = app.scripts.state.runs[0];
    act(() => app.latest().push('ScriptRunUpdated', { run: summaryOf({ ...started, status: 'running', phase: 'preparing' }) }));
    await waitFor(() => expect(progress).toHaveAttribute('aria-valuetext', 'Preparing the copy'));
    act(() =>
      app.latest().push('ScriptRunUpdated', { run: summaryOf({ ...started, status: 'running', phase: 'running', progress: { statement: 2, of: 3 }, statements: 3 }) }),
    );
    await waitFor(() => expect(progress).toHaveAttribute('aria-valuetext', 'Running statement 2 of 3'));
    // The history row follows the same event.
    expect(within(screen.getByRole('table', { name: 'Runs' })).getByText('Running')).toBeInTheDocument();

    const finished: ScriptRun = {
      ...started,
      status: 'succeeded',
      phase: 'finished',
      copiedFrom: 'backup',
      finishedAt: '2025-02-03T04:05:09.000Z',
      durationMs: 3000,
      ok: true,
      statements: 3,
      results: [
        aResult({ statement: 'create table t (id int);', line: 1, columns: undefined, rows: undefined, rowCount: null, command: 'CREATE TABLE', durationMs: 2.2 }),
        aResult({ statement: 'insert into t values (1), (2);', line: 2, columns: undefined, rows: undefined, rowCount: 2, command: 'INSERT', durationMs: 0.6 }),
        aResult({
          statement: 'select id from t;',
          line: 3,
          columns: [{ name: 'id', type: 'int4' }],
          rows: [['1'], ['2']],
          rowCount: 2,
          notices: [{ severity: 'NOTICE', message: 'just saying' }],
        }),
      ],
      changes: [{ table: 'public.t', before: 0, after: 2 }],
    };
    app.scripts.state.runs = [finished];
    act(() => app.latest().push('ScriptRunUpdated', { run: summaryOf(finished) }));

    const results = region('Results');
    expect(await results.findByText('CREATE TABLE')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Run progress' })).not.toBeInTheDocument();
    expect(results.getByText('2 rows affected')).toBeInTheDocument();
    const grid = within(results.getByRole('table', { name: 'Rows of statement 3' }));
    expect(grid.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['id int4']);
    expect(grid.getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['1', '2']);
    expect(within(results.getByRole('list', { name: 'Notices of statement 3' })).getByText(/just saying/)).toBeInTheDocument();
    const changes = within(results.getByRole('table', { name: 'Changes' }));
    expect(changes.getAllByRole('row')[1]).toHaveTextContent('public.t02+2');
    expect(within(screen.getByRole('table', { name: 'Runs' })).getByText('Succeeded')).toBeInTheDocument();
  });

  it('cancels the run on show', async () => {
    const running = aPendingRun({ id: 'r-9', status: 'running', phase: 'running', progress: { statement: 1, of: 2 }, statements: 2 });
    const { scripts, user } = openScript({ runs: [running] });
    const cancel = await screen.findByRole('button', { name: 'Cancel run' });
    expect(screen.getByRole('progressbar', { name: 'Run progress' })).toHaveAttribute('aria-valuetext', 'Running statement 1 of 2');
    await user.click(cancel);
    await waitFor(() => expect(scripts.calls).toEqual(['POST cancel r-9']));
    expect(await region('Results').findByText('The run was cancelled')).toBeInTheDocument();
    expect(region('Results').getByText('Cancelled by ada@example.com.')).toBeInTheDocument();
  });

  it('marks a failed statement’s error in the editor and moves the cursor there on request', async () => {
    const script = 'select 1;\n\nselect nope\n  from orders;';
    const failed = aScriptRun({
      status: 'failed',
      ok: false,
      failures: 1,
      script,
      results: [
        aResult({ statement: 'select 1;', line: 1, columns: [{ name: '?column?', type: 'int4' }], rows: [['1']], rowCount: 1 }),
        aResult({
          statement: 'select nope\n  from orders;',
          line: 3,
          columns: undefined,
          rows: undefined,
          rowCount: null,
          command: undefined,
          error: { message: 'column "nope" does not exist', code: '42703', position: 8, line: 3 },
        }),
      ],
    });
    const { user } = openScript({ script: { script, updatedAt: null, updatedBy: null }, runs: [failed] });
    const view = await editor();

    const results = region('Results');
    expect(await results.findByText('42703: column "nope" does not exist')).toBeInTheDocument();
    // The offending word is underlined in the editor, with the error as its diagnostic.
    await waitFor(() => expect(document.querySelector('.cm-lintRange-error')).toHaveTextContent('nope'));

    await user.click(results.getByRole('button', { name: 'Go to line 3, character 8 of the statement' }));
    expect(view.state.doc.lineAt(view.state.selection.main.head).number).toBe(3);
    expect(view.state.selection.main.head).toBe(script.indexOf('nope'));
    expect(view.hasFocus).toBe(true);

    // Once the script changes, the marks of the old run no longer point anywhere.
    typeAtEnd(view, ' ');
    await waitFor(() => expect(document.querySelector('.cm-lintRange-error')).toBeNull());
  });

  it('asks before leaving with unsaved changes, and stays on a no', async () => {
    const { user, router } = openScript();
    const view = await editor();
    replaceAll(view, 'select 42;');

    await user.click(screen.getByRole('link', { name: 'Back to orders' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Leave without saving?' }));
    await user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe('/instances/i-1/script');
    expect(view.state.doc.toString()).toBe('select 42;');

    await user.click(screen.getByRole('link', { name: 'Back to orders' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Leave without saving?' })).getByRole('button', { name: 'Leave' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/instances/i-1'));
  });

  it('leaves without a question when nothing is unsaved, and warns the browser only while something is', async () => {
    const { user, router } = openScript();
    const view = await editor();
    const unload = () => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(unload()).toBe(false);
    typeAtEnd(view, ' ');
    await screen.findByText('Unsaved changes');
    expect(unload()).toBe(true);
    replaceAll(view, 'select 1;');
    await waitFor(() => expect(screen.queryByText('Unsaved changes')).not.toBeInTheDocument());
    expect(unload()).toBe(false);

    await user.click(screen.getByRole('link', { name: 'Back to orders' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/instances/i-1'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('sends the chosen source and the continue-after-errors choice', async () => {
    const { scripts, user, store, latest } = openScript();
    await editor();
    const source = screen.getByRole('combobox', { name: 'Run on a copy of' });
    const sources = await openOptions(user, source);
    await waitFor(() => expect(within(sources).getAllByRole('option')).toHaveLength(5));
    expect(within(sources).getAllByRole('option').map((option) => option.textContent)).toEqual([
      'Newest backup',
      `Backup of ${formatDateTime(newerBackup.startedAt)} (2.0 MB)`,
      `Backup of ${formatDateTime(olderBackup.startedAt)} (1.0 MB)`,
      'Live copy (the data now)',
      'Empty instance (no data)',
    ]);
    expect(screen.queryByText('This instance has no backup yet')).not.toBeInTheDocument();

    await pickOption(user, source, `Backup of ${formatDateTime(olderBackup.startedAt)} (1.0 MB)`);
    await user.click(screen.getByRole('checkbox', { name: 'Continue after errors' }));
    await user.click(screen.getByRole('button', { name: /^Run/ }));
    await waitFor(() => expect(scripts.bodies).toEqual([{ script: 'select 1;', source: 'b-1', continueOnError: true }]));

    // One run at a time: the next, on the live data, once the first has finished.
    expect(screen.getByRole('button', { name: /^Run/ })).toBeDisabled();
    const done = Object.assign(scripts.state.runs[0], { status: 'succeeded', phase: 'finished', finishedAt: '2025-02-03T04:05:09.000Z', ok: true });
    await waitFor(() => expect(store.getState().realtime.connection).toBe('Connected'));
    act(() => latest().push('ScriptRunUpdated', { run: summaryOf(done) }));
    await pickOption(user, source, 'Live copy (the data now)');
    await waitFor(() => expect(screen.getByRole('button', { name: /^Run/ })).toBeEnabled());
    await user.click(screen.getByRole('button', { name: /^Run/ }));
    await waitFor(() => expect(scripts.bodies.at(-1)).toEqual({ script: 'select 1;', source: 'live', continueOnError: true }));
  });

  it('says so before running when the instance has no backup, and runs only on the copy chosen: the live instance or an empty one', async () => {
    const { scripts, user } = openScript({}, orders, []);
    await editor();

    expect(await screen.findByText('This instance has no backup yet')).toBeInTheDocument();
    expect(screen.getByText(/on a copy of the live instance or on an empty instance/)).toBeInTheDocument();
    const run = screen.getByRole('button', { name: /^Run/ });
    expect(run).toBeDisabled();
    ctrl('Enter');
    const source = screen.getByRole('combobox', { name: 'Run on a copy of' });
    const sources = await openOptions(user, source);
    expect(within(sources).getAllByRole('option').map((option) => [option.textContent, option.getAttribute('aria-disabled') === 'true'])).toEqual([
      ['Newest backup (there is none)', true],
      ['Live copy (the data now)', false],
      ['Empty instance (no data)', false],
    ]);

    await pickOption(user, source, 'Empty instance (no data)');
    expect(screen.queryByText('This instance has no backup yet')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /^Run/ }));

    await waitFor(() => expect(scripts.bodies).toEqual([{ script: 'select 1;', source: 'empty', continueOnError: false }]));
    expect(await region('Results').findByText('Empty instance')).toBeInTheDocument();
  });

  it('lists the runs and shows the one picked', async () => {
    const newer = aScriptRun({ id: 'r-2', startedAt: '2025-02-04T10:00:00.000Z', source: 'live', copiedFrom: 'live' });
    const older = aScriptRun({
      id: 'r-1',
      startedAt: '2025-02-03T10:00:00.000Z',
      status: 'failed',
      ok: false,
      failures: 1,
      results: [aResult({ columns: undefined, rows: undefined, rowCount: null, error: { message: 'relation "orders" does not exist', code: '42P01' } })],
    });
    const { user } = openScript({ runs: [newer, older] });
    const runs = within(await screen.findByRole('table', { name: 'Runs' }));
    const rows = runs.getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 5).map((cell) => cell.textContent))).toEqual([
      [formatDateTime(newer.startedAt), 'ada@example.com', 'Live copy', 'Succeeded', '3 s'],
      [formatDateTime(older.startedAt), 'ada@example.com', 'Newest backup', 'Failed: 1 error', '3 s'],
    ]);
    // The newest run is on show until another is picked.
    expect(await region('Results').findByRole('table', { name: 'Rows of statement 1' })).toBeInTheDocument();
    expect(within(rows[0]).getByRole('button', { name: /Show the run of/ })).toHaveAttribute('aria-pressed', 'true');

    await user.click(within(rows[1]).getByRole('button', { name: /Show the run of/ }));
    expect(await region('Results').findByText('42P01: relation "orders" does not exist')).toBeInTheDocument();
    expect(within(rows[1]).getByRole('button', { name: /Show the run of/ })).toHaveAttribute('aria-pressed', 'true');
  });

  it('edits an etcd script as plain lines and shows each command’s output', async () => {
    const etcd = anInstance({ id: 'i-1', name: 'config', type: 'etcd' });
    const run = aScriptRun({
      script: 'put a 1\nget a',
      changes: undefined,
      results: [
        aResult({ statement: 'put a 1', line: 1, columns: undefined, rows: undefined, rowCount: null, command: 'PUT', output: 'OK' }),
        aResult({ statement: 'get a', line: 2, columns: [{ name: 'key', type: 'bytes' }, { name: 'value', type: 'bytes' }], rows: [['a', '1']], rowCount: 1, command: 'GET' }),
      ],
    });
    openScript({ script: { script: 'put a 1\nget a', updatedAt: null, updatedBy: null }, runs: [run] }, etcd);
    const content = await screen.findByRole('textbox', { name: 'etcd commands, one a line' });
    expect(content).not.toHaveAttribute('data-language');
    expect(screen.getByText(/One command a line/)).toBeInTheDocument();

    const results = region('Results');
    expect(await results.findByLabelText('Output of statement 1')).toHaveTextContent('OK');
    expect(within(results.getByRole('table', { name: 'Rows of statement 2' })).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['a', '1']);
    // Row counts per table are a pg thing.
    expect(results.queryByRole('table', { name: 'Changes' })).not.toBeInTheDocument();
  });

  it('says when the instance is not there, or not visible to the person', async () => {
    server.use(meHandler(admin), ...instanceServer(null).handlers, ...scriptServer().handlers, http.get('/instances/:id/script', () => problem(404, 'Not Found')));
    renderAppWithHub('/instances/i-1/script');
    expect(await screen.findByText('No such instance')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to instances' })).toHaveAttribute('href', '/instances');
  });

  it('offers a retry when the script cannot be read', async () => {
    let fail = true;
    const { user } = openScript();
    server.use(http.get('/instances/:id/script', () => (fail ? problem(500, 'Internal Server Error') : HttpResponse.json({ script: 'select 3;', updatedAt: null, updatedBy: null }))));
    expect(await screen.findByText('Could not load the script.')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect((await editor()).state.doc.toString()).toBe('select 3;');
  });
});
