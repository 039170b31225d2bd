import type { Reducer, UnknownAction } from '@reduxjs/toolkit';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Runs actions through a reducer from a deeply frozen state, so any mutation of it throws. */
export function reduceFrozen<S>(reducer: Reducer<S>, state: S, ...actions: UnknownAction[]): S {
  return actions.reduce((current, action) => reducer(deepFreeze(current), action), state);
}
