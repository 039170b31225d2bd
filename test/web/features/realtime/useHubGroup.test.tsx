import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Provider } from 'react-redux';
import type { HubGroupName } from '../../../../contracts/hub';
import { layoutEntered } from '../../../../src/features/realtime/realtimeSlice';
import { useHubGroup } from '../../../../src/features/realtime/useHubGroup';
import { admin } from '../../fixtures';
import { signedIn, storeWithFakeHub } from './fakeHub';

async function connectedApp() {
  const app = storeWithFakeHub(signedIn(admin));
  app.store.dispatch(layoutEntered());
  await waitFor(() => expect(app.connection()).toBe('Connected'));
  const wrapper = ({ children }: { children: ReactNode }) => <Provider store={app.store}>{children}</Provider>;
  const render = (props: { name: HubGroupName; args: (string | null)[] }) =>
    renderHook(({ name, args }) => useHubGroup(name, ...args), { initialProps: props, wrapper });
  return { ...app, render, joined: () => app.store.getState().realtime.joined };
}

describe('useHubGroup', () => {
  it('joins the group on mount and leaves it on unmount', async () => {
    const app = await connectedApp();
    const view = app.render({ name: 'Instance', args: ['i-1'] });
    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinInstance("i-1")']));
    expect(app.joined()).toEqual({ 'Instance(i-1)': { name: 'Instance', args: ['i-1'], count: 1 } });

    view.unmount();

    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinInstance("i-1")', 'LeaveInstance("i-1")']));
    expect(app.joined()).toEqual({});
  });

  it('stays joined across re-renders with equal arguments', async () => {
    const app = await connectedApp();
    const view = app.render({ name: 'Logs', args: [null] });
    view.rerender({ name: 'Logs', args: [null] });
    view.rerender({ name: 'Logs', args: [null] });
    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinLogs(null)']));
    expect(app.joined()['Logs()'].count).toBe(1);
  });

  it('moves to the new group when the arguments change', async () => {
    const app = await connectedApp();
    const view = app.render({ name: 'Backups', args: ['i-1'] });
    view.rerender({ name: 'Backups', args: ['i-2'] });

    await waitFor(() =>
      expect(app.latest().invoked()).toEqual(['JoinBackups("i-1")', 'LeaveBackups("i-1")', 'JoinBackups("i-2")']),
    );
    expect(Object.keys(app.joined())).toEqual(['Backups(i-2)']);
  });

  it('shares a group between two components: one join, one leave after both go', async () => {
    const app = await connectedApp();
    const first = app.render({ name: 'Instances', args: [] });
    const second = app.render({ name: 'Instances', args: [] });
    first.unmount();
    await waitFor(() => expect(app.joined()['Instances()'].count).toBe(1));
    expect(app.latest().invoked()).toEqual(['JoinInstances()']);

    second.unmount();
    await waitFor(() => expect(app.latest().invoked()).toEqual(['JoinInstances()', 'LeaveInstances()']));
  });
});
