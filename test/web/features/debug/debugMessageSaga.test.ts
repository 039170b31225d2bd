import type { UnknownAction } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { legacy_configureStore as configureMockStore } from 'redux-mock-store';
import { debugMessageSaga } from '../../../../src/features/debug/debugMessageSaga';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { pushToast } from '../../../../src/features/ui/uiSlice';

function recordSaga() {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureMockStore<object>([sagaMiddleware])({});
  sagaMiddleware.run(debugMessageSaga);
  return store;
}

describe('debugMessageSaga', () => {
  it('answers every DebugMessage with an info toast "Message from <sender>" carrying the text', () => {
    const store = recordSaga();
    const first = hubEvent('DebugMessage', { text: 'Deploy at noon', from: 'ada@example.com', sentAt: 't1' }, 't1');
    const second = hubEvent('DebugMessage', { text: 'Done', from: 'rob@example.com', sentAt: 't2' }, 't2');

    store.dispatch(first);
    store.dispatch(second);

    const actions = store.getActions() as UnknownAction[];
    expect(actions.map((action) => action.type)).toEqual([first.type, pushToast.type, second.type, pushToast.type]);
    expect(actions[1].payload).toEqual({ id: expect.any(String), status: 'info', summary: 'Message from ada@example.com', detail: 'Deploy at noon' });
    expect(actions[3].payload).toMatchObject({ summary: 'Message from rob@example.com', detail: 'Done' });
  });

  it('ignores every other pushed event', () => {
    const store = recordSaga();
    store.dispatch(hubEvent('InstanceCreated', { id: 'i-1' }, 't'));
    expect((store.getActions() as UnknownAction[]).map((action) => action.type)).toEqual(['realtime/event/InstanceCreated']);
  });
});
