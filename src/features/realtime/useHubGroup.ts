import { useEffect } from 'react';
import type { HubGroupName } from '../../../contracts/hub';
import { useAppDispatch } from '../../app/hooks';
import { groupJoined, groupLeft } from './realtimeSlice';

/**
 * Holds a hub group while the calling component is mounted: Join{name}(...args) on mount, Leave
 * on unmount. Arguments are compared by value, so a re-render with equal arguments changes nothing.
 */
export function useHubGroup(name: HubGroupName, ...args: (string | null)[]) {
  const dispatch = useAppDispatch();
  const argsKey = JSON.stringify(args);
  useEffect(() => {
    const group = { name, args: JSON.parse(argsKey) as (string | null)[] };
    dispatch(groupJoined(group));
    return () => {
      dispatch(groupLeft(group));
    };
  }, [dispatch, name, argsKey]);
}
