import { currentCompletions, startCompletion } from '@codemirror/autocomplete';
import { EditorView } from '@codemirror/view';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { backupServer } from '../../handlers/backupsHandlers';
import { anInstance, instanceServer } from '../../handlers/instancesHandlers';
import { scriptServer } from '../../handlers/scriptsHandlers';
import { setupMsw } from '../../msw';
import { renderAppWithHub } from '../realtime/renderAppWithHub';
import { prepareScriptEditor } from './editorSetup';

// The script editor completes from the instance's own tables and columns (GET …/script/schema).

const server = setupMsw();
prepareScriptEditor();
jest.setTimeout(30_000);

const orders = anInstance({ id: 'i-1', name: 'orders' });

function openScript(script: string) {
  const scripts = scriptServer({
    script: { script, updatedAt: null, updatedBy: null },
    schema: [{ schema: 'public', name: 'orders', columns: [{ name: 'id', type: 'int4' }, { name: 'total', type: 'numeric' }] }],
  });
  server.use(meHandler(admin), ...instanceServer(orders).handlers, ...backupServer({ backups: [] }).handlers, ...scripts.handlers);
  return { ...renderAppWithHub('/instances/i-1/script'), scripts };
}

async function editor() {
  return EditorView.findFromDOM(await screen.findByRole('textbox', { name: 'SQL script' }))!;
}

describe('completion in the script editor', () => {
  it('offers the columns of the instance’s tables, with their types', async () => {
    const { scripts } = openScript('select orders.');
    const view = await editor();
    await waitFor(() => expect(scripts.state.schemaReads).toBe(1));
    act(() => view.dispatch({ selection: { anchor: view.state.doc.length } }));
    // Asked again until the editor has the schema (it reconfigures once the answer is in); the
    // completion itself arrives a moment after it is asked for.
    await waitFor(async () => {
      act(() => void startCompletion(view));
      await waitFor(() => expect(currentCompletions(view.state).length).toBeGreaterThan(0), { timeout: 500 });
      expect(currentCompletions(view.state).map((c) => [c.label, c.detail])).toEqual([
        ['id', 'int4'],
        ['total', 'numeric'],
      ]);
    });
  });

  it('reads the tables again on demand', async () => {
    const { scripts } = openScript('select 1;');
    await editor();
    await waitFor(() => expect(scripts.state.schemaReads).toBe(1));
    await userEvent.click(screen.getByRole('button', { name: 'Reload tables' }));
    await waitFor(() => expect(scripts.state.schemaReads).toBe(2));
  });

  it('says why there is no column completion when the instance could not be read', async () => {
    openScript('select 1;');
    server.use(
      http.get('/instances/:id/script/schema', () =>
        HttpResponse.json({ tables: [], readAt: '2025-02-03T04:00:00.000Z', unreadable: "The instance's tables could not be read: the instance did not answer (ECONNREFUSED)." }),
      ),
    );
    expect(await screen.findByText(/Completion offers no columns: The instance's tables could not be read/)).toBeInTheDocument();
  });
});
