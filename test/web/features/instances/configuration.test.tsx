import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UpdateConfigRequest } from '../../../../contracts/instances';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { configServer, pgParameters } from '../../handlers/configHandlers';
import { aParameter } from '../../handlers/instancesHandlers';
import { validationProblem } from '../../handlers/pages';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { openOptions, pickOption } from '../../pickOption';

const server = setupMsw();
// The screen is a lazy route: load its code once, before the tests time their steps.
beforeAll(() => import('../../../../src/features/instances/EditConfigurationPage'), 30_000);

function openConfiguration(options: Parameters<typeof configServer>[0] = {}) {
  const fake = configServer(options);
  server.use(meHandler(admin), ...fake.handlers);
  const user = userEvent.setup();
  return { ...renderApp('/instances/i-1/configuration'), fake, user };
}

/** The list item of one parameter, found by its editor's label. */
const rowOf = (name: string) => within(screen.getByLabelText(name).closest('li')!);
const field = (name: string) => screen.getByLabelText(name) as HTMLInputElement;

async function typeInto(user: ReturnType<typeof userEvent.setup>, name: string, text: string) {
  await user.clear(field(name));
  if (text) await user.type(field(name), text);
}

describe('EditConfigurationPage: the form', () => {
  it('generates an editor per parameter type, with its apply kind, default and bounds', async () => {
    const { user } = openConfiguration();
    expect(await screen.findByRole('heading', { level: 1, name: 'orders configuration' })).toBeInTheDocument();
    expect(screen.getByText('PostgreSQL 16.4')).toBeInTheDocument();
    expect(screen.getByText('Running')).toBeInTheDocument();

    // integer: a text box with its unit and bounds
    expect(field('work_mem')).toHaveValue('4096');
    expect(rowOf('work_mem').getByText('kB')).toBeInTheDocument();
    expect(rowOf('work_mem').getByText('Default: 4096 · Range: 64 – 2147483647 kB')).toBeInTheDocument();
    expect(rowOf('max_connections').getByText('restart')).toBeInTheDocument();
    expect(rowOf('work_mem').getByText('reload')).toBeInTheDocument();
    // bool: a switch
    expect(screen.getByRole('checkbox', { name: 'log_connections' })).not.toBeChecked();
    // enum: a select of its values
    const levels = screen.getByRole('combobox', { name: 'log_min_messages' });
    expect(levels).toHaveValue('warning');
    expect(within(await openOptions(user, levels)).getAllByRole('option').map((option) => option.textContent)).toEqual(['debug1', 'info', 'notice', 'warning', 'error']);
    // real and string: text boxes
    expect(screen.getByRole('textbox', { name: 'random_page_cost' })).toHaveValue('4');
    expect(screen.getByRole('textbox', { name: 'application_name' })).toHaveValue('');
    expect(rowOf('application_name').getByText("Default: ''")).toBeInTheDocument();
  });

  it('flags a value out of bounds while it is typed and will not review it', async () => {
    const { user } = openConfiguration();
    await screen.findByLabelText('max_connections');

    await typeInto(user, 'max_connections', '0');
    expect(rowOf('max_connections').getByText('Must be within 1 – 262143.')).toBeInTheDocument();
    expect(field('max_connections')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('button', { name: 'Review changes (1)' })).toBeDisabled();
    expect(screen.getByText('Fix 1 value before saving: max_connections.')).toBeInTheDocument();

    await typeInto(user, 'max_connections', '12.5');
    expect(rowOf('max_connections').getByText('Must be a whole number.')).toBeInTheDocument();

    await typeInto(user, 'max_connections', '200');
    expect(rowOf('max_connections').queryByText(/Must be/)).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Review changes (1)' })).toBeEnabled();
  });

  it('filters by name or description, and shows only the changes when asked', async () => {
    const { user } = openConfiguration();
    await screen.findByLabelText('max_connections');
    const search = screen.getByRole('searchbox', { name: 'Search parameters' });
    const names = () => within(screen.getByRole('list', { name: 'Parameters' })).getAllByRole('listitem').map((item) => item.querySelector('label')?.textContent);

    await user.type(search, 'memory');
    await waitFor(() => expect(names()).toEqual(['work_mem']));
    expect(screen.getByText('Showing 1 of 6 parameters')).toBeInTheDocument();

    await user.clear(search);
    await user.type(search, 'nothing like this');
    expect(await screen.findByText('No parameters match.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show all parameters' }));
    await waitFor(() => expect(names()).toHaveLength(6));

    await user.click(screen.getByRole('checkbox', { name: 'log_connections' }));
    await user.click(screen.getByRole('checkbox', { name: /Changed only/ }));
    expect(names()).toEqual(['log_connections']);
    expect(rowOf('log_connections').getByText('changed')).toBeInTheDocument();
    expect(rowOf('log_connections').getByText('Saved: off')).toBeInTheDocument();

    // Undoing the only change leaves nothing to show.
    await user.click(screen.getByRole('button', { name: 'Undo the change to log_connections' }));
    expect(screen.getByText('No changed parameters.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Review changes' })).toBeDisabled();
  });
});

describe('EditConfigurationPage: saving', () => {
  it('reviews the diff and saves exactly the changed parameters with a reload', async () => {
    const { user, fake, store } = openConfiguration();
    await screen.findByLabelText('work_mem');
    await typeInto(user, 'work_mem', '8192');
    await user.click(screen.getByRole('checkbox', { name: 'log_connections' }));
    // Typed and typed back: not a change.
    await typeInto(user, 'random_page_cost', '1.1');
    await typeInto(user, 'random_page_cost', '4');

    await user.click(screen.getByRole('button', { name: 'Review changes (2)' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Review changes' }));
    const reload = within(dialog.getByRole('region', { name: 'Applied by a reload' }));
    expect(reload.getAllByRole('listitem').map((item) => item.textContent)).toEqual(['work_mem: 4096 kB → 8192 kB', 'log_connections: off → on']);
    expect(dialog.queryByRole('region', { name: 'Need a restart' })).not.toBeInTheDocument();
    // Every change is reload-only: reloading is the default and restarting is not offered.
    expect(dialog.getByRole('radio', { name: 'Save and reload' })).toBeChecked();
    expect(dialog.queryByRole('radio', { name: 'Save and restart' })).not.toBeInTheDocument();

    await user.click(dialog.getByRole('button', { name: 'Save and reload' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(fake.bodies).toEqual([{ parameters: { work_mem: '8192', log_connections: 'on' }, apply: 'reload' } satisfies UpdateConfigRequest]);
    expect(store.getState().ui.toasts).toEqual([
      expect.objectContaining({ summary: 'Configuration saved (revision 1)', detail: 'Reloaded: every change is in effect.' }),
    ]);
    // The saved values come back as the new state: nothing is changed any more.
    await waitFor(() => expect(field('work_mem')).toHaveValue('8192'));
    expect(screen.getByRole('button', { name: 'Review changes' })).toBeDisabled();
    expect(screen.getByText('6 parameters · revision 1')).toBeInTheDocument();
  });

  it('groups restart changes apart, defaults to a restart and saves with the apply chosen', async () => {
    const { user, fake } = openConfiguration();
    await screen.findByLabelText('max_connections');
    await typeInto(user, 'max_connections', '200');
    await pickOption(user, screen.getByRole('combobox', { name: 'log_min_messages' }), 'error');

    await user.click(screen.getByRole('button', { name: 'Review changes (2)' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Review changes' }));
    expect(within(dialog.getByRole('region', { name: 'Need a restart' })).getByRole('listitem')).toHaveTextContent('max_connections: 100 → 200');
    expect(within(dialog.getByRole('region', { name: 'Applied by a reload' })).getByRole('listitem')).toHaveTextContent(
      'log_min_messages: warning → error',
    );
    expect(dialog.getByRole('radio', { name: 'Save and restart' })).toBeChecked();

    await user.click(dialog.getByRole('radio', { name: 'Save only' }));
    await user.click(dialog.getByRole('button', { name: 'Save only' }));

    await waitFor(() => expect(fake.bodies).toHaveLength(1));
    expect(fake.bodies[0]).toEqual({ parameters: { max_connections: '200', log_min_messages: 'error' }, apply: 'none' });
  });

  it('marks a restart-only change saved without a restart as waiting for one, until the restart', async () => {
    const { user, fake, store } = openConfiguration();
    await screen.findByLabelText('max_connections');
    expect(screen.queryByText(/waits? for a restart/)).not.toBeInTheDocument();
    await typeInto(user, 'max_connections', '200');
    await user.click(screen.getByRole('button', { name: 'Review changes (1)' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Review changes' }));
    await user.click(dialog.getByRole('radio', { name: 'Save only' }));
    await user.click(dialog.getByRole('button', { name: 'Save only' }));

    const notice = within((await screen.findByText('1 saved change waits for a restart')).closest<HTMLElement>('[role="status"]')!);
    expect(notice.getByText('max_connections')).toBeInTheDocument();
    expect(rowOf('max_connections').getByText('pending restart')).toBeInTheDocument();
    expect(rowOf('work_mem').queryByText('pending restart')).not.toBeInTheDocument();

    await user.click(notice.getByRole('button', { name: 'Restart now' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Restart orders?' })).getByRole('button', { name: 'Restart' }));
    await waitFor(() => expect(fake.calls).toContain('POST restart'));
    // The restart finishes: what ran is what was saved, and nothing waits any more.
    fake.state.config = { ...fake.state.config, pendingRestart: [] };
    act(() => {
      store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-1', kind: 'restart', ok: true, error: null, detail: null }, 't'));
    });
    await waitFor(() => expect(screen.queryByText('1 saved change waits for a restart')).not.toBeInTheDocument());
    expect(rowOf('max_connections').queryByText('pending restart')).not.toBeInTheDocument();
  });

  it('shows both sides of a change in the parameter’s unit, whatever unit was typed', async () => {
    const { user } = openConfiguration();
    await screen.findByLabelText('work_mem');
    await typeInto(user, 'work_mem', '64MB');
    await user.click(screen.getByRole('button', { name: 'Review changes (1)' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Review changes' }));
    expect(within(dialog.getByRole('region', { name: 'Applied by a reload' })).getByRole('listitem')).toHaveTextContent('work_mem: 4096 kB → 65536 kB');
  });

  it('shows the server’s refusals on their rows and keeps everything typed', async () => {
    const { user, fake } = openConfiguration({
      answer: () => validationProblem({ max_connections: ['max_connections must be at most 10000 on this host.'] }),
    });
    await screen.findByLabelText('max_connections');
    await typeInto(user, 'max_connections', '20000');
    await typeInto(user, 'application_name', 'billing');
    await user.click(screen.getByRole('button', { name: 'Review changes (2)' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Review changes' })).getByRole('button', { name: 'Save and restart' }));

    expect(await screen.findByText('max_connections must be at most 10000 on this host.')).toBeInTheDocument();
    expect(rowOf('max_connections').getByText('max_connections must be at most 10000 on this host.')).toBeInTheDocument();
    expect(field('max_connections')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText('The server refused the changes; nothing was saved')).toBeInTheDocument();
    expect(field('max_connections')).toHaveValue('20000');
    expect(field('application_name')).toHaveValue('billing');
    expect(screen.getByRole('button', { name: 'Review changes (2)' })).toBeEnabled();
    expect(fake.calls).toContain('PUT config');

    // Editing the refused value clears the server's word on it.
    await typeInto(user, 'max_connections', '9000');
    expect(rowOf('max_connections').queryByText(/at most 10000/)).not.toBeInTheDocument();
  });
});

describe('EditConfigurationPage: the raw view', () => {
  it('writes the changes as name = value lines and reads edited lines back', async () => {
    const { user } = openConfiguration();
    await screen.findByLabelText('work_mem');
    await typeInto(user, 'work_mem', '8MB');
    await typeInto(user, 'application_name', "it's mine");

    await user.click(screen.getByRole('tab', { name: 'Raw' }));
    const raw = (await screen.findByRole('textbox', { name: /Changed parameters/ })) as HTMLTextAreaElement;
    expect(raw.value).toBe("work_mem = 8MB\napplication_name = 'it''s mine'\n");

    // An unreadable line is reported by number and keeps the form closed until it is fixed.
    await user.clear(raw);
    await user.paste("work_mem = 8MB\napplication_name = 'it''s mine'\nlog_min_messages = error\noops\n");
    expect(screen.getByText('Line 4: expected name = value.')).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Form' })).toBeDisabled();
    expect(screen.getByRole('button', { name: /Review changes/ })).toBeDisabled();

    await user.clear(raw);
    await user.paste("application_name = 'it''s mine'  # quoted\nlog_min_messages = error\nnot_a_parameter = 1");
    expect(screen.getByText('Line 3: there is no parameter not_a_parameter.')).toBeInTheDocument();
    await user.type(raw, '{backspace}'.repeat('\nnot_a_parameter = 1'.length));
    expect(screen.queryByText(/^Line/)).not.toBeInTheDocument();

    await user.click(screen.getByRole('tab', { name: 'Form' }));
    // work_mem's line was removed: that change is undone; the others are in the form.
    expect(await screen.findByLabelText('work_mem')).toHaveValue('4096');
    expect(field('application_name')).toHaveValue("it's mine");
    expect(screen.getByRole('combobox', { name: 'log_min_messages' })).toHaveValue('error');

    // And back: the same lines again.
    await user.click(screen.getByRole('tab', { name: 'Raw' }));
    expect(screen.getByRole('textbox', { name: /Changed parameters/ })).toHaveValue("log_min_messages = error\napplication_name = 'it''s mine'\n");
  });
});

describe('EditConfigurationPage: parameters the caller may not set', () => {
  it('shows them read-only with who sets them and why', async () => {
    openConfiguration({
      parameters: [
        ...pgParameters,
        aParameter({
          name: 'archive_command',
          value: '(disabled)',
          default: '',
          policy: 'managed',
          editable: false,
          reason: 'archive_command is managed by Warden: it runs a shell command as the engine account.',
          apply: 'reload',
        }),
        aParameter({ name: 'fsync', value: 'on', default: 'on', type: 'bool', policy: 'admin', editable: false, reason: 'Only an admin may set fsync: turning it off can lose or corrupt data on a crash.' }),
      ],
    });
    await screen.findByLabelText('archive_command');

    expect(field('archive_command')).toHaveAttribute('readonly');
    expect(rowOf('archive_command').getByText('managed by Warden')).toBeInTheDocument();
    expect(rowOf('archive_command').getByText(/it runs a shell command as the engine account/)).toBeInTheDocument();
    // A bool the caller may not set is no switch at all, only its value.
    expect(screen.queryByRole('checkbox', { name: 'fsync' })).not.toBeInTheDocument();
    expect(field('fsync')).toHaveValue('on');
    expect(rowOf('fsync').getByText('admins only')).toBeInTheDocument();
    // Editable ones stay editable.
    expect(field('work_mem')).not.toHaveAttribute('readonly');
  });
});
