import { createAppStore } from '../../../src/app/createStore';
import { signedInSaga } from '../../../src/app/rootSaga';
import { windowDeps } from '../../../src/app/deps';
import { instancesUpdateSlice } from '../../../src/features/instances/updatesSlice';
import { logsTailSlice } from '../../../src/features/logs/logsSlice';
import { realtimeSlice } from '../../../src/features/realtime/realtimeSlice';

// The browser's store starts with the sign-in page's slices only; the signed-in shell's saga adds the
// rest, and says so, before any screen behind sign-in reads them.

it('holds only the sign-in page’s slices until the signed-in saga adds the others with their initial state', () => {
  const { store, runSaga } = createAppStore();
  const seen: string[] = [];
  store.subscribe(() => seen.push(Object.keys(store.getState()).sort().join(',')));
  const before = store.getState() as unknown as Record<string, unknown>;
  for (const slice of [realtimeSlice, instancesUpdateSlice, logsTailSlice]) expect(before[slice.name]).toBeUndefined();
  expect(Object.keys(before)).toEqual(expect.arrayContaining(['auth', 'ui']));

  const task = runSaga(signedInSaga, windowDeps);
  const after = store.getState();
  expect(after[realtimeSlice.name]).toEqual(realtimeSlice.getInitialState());
  expect(after[instancesUpdateSlice.name]).toEqual(instancesUpdateSlice.getInitialState());
  expect(after[logsTailSlice.name]).toEqual(logsTailSlice.getInitialState());
  // The first state change after the saga started already carries them.
  expect(seen[0].split(',')).toEqual(expect.arrayContaining([realtimeSlice.name, instancesUpdateSlice.name, logsTailSlice.name]));
  task.cancel();
});

