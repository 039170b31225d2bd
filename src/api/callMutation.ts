import type { ThunkAction, UnknownAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { putResolve } from 'redux-saga/effects';

/**
 * Runs an RTK Query mutation from a saga — `endpoint.initiate(arg, { track: false })` when no
 * screen reads its state — and returns its outcome, `{data}` or `{error}`. A failure has
 * already gone down the one error path; the saga only decides what happens next.
 */
export function* callMutation<Outcome>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any store's thunk
  thunk: ThunkAction<PromiseLike<Outcome>, any, any, UnknownAction>,
): SagaIterator<Outcome> {
  // redux-saga types put for plain actions; the thunk middleware takes the function and returns its promise.
  return yield putResolve(thunk as unknown as UnknownAction);
}
