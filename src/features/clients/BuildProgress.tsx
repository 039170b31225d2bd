import { HStack, Progress, Text } from '@chakra-ui/react';
import { useEffect, useRef, useState } from 'react';
import { baseApi } from '../../api/baseApi';
import { useAppDispatch } from '../../app/hooks';
import { clientListTags, useClientBuildStatusQuery } from './clientsApi';

/** How often the status is asked for while a build runs. */
const buildPollMs = 2000;

/**
 * The build of the current version's releases, while it runs (the server builds them once at
 * first start). A build that just finished brings new versions, so the lists are fetched again;
 * a failed one says why.
 */
export function BuildProgress() {
  const dispatch = useAppDispatch();
  // Asked for again only while a build runs.
  const [building, setBuilding] = useState(false);
  const { data } = useClientBuildStatusQuery(undefined, { pollingInterval: building ? buildPollMs : 0 });
  const state = data?.state;

  const previous = useRef(state);
  useEffect(() => {
    setBuilding(state === 'building');
    if (previous.current === 'building' && state === 'succeeded') dispatch(baseApi.util.invalidateTags(clientListTags));
    previous.current = state;
  }, [state, dispatch]);

  if (!data) return null;
  if (data.state === 'failed') {
    return (
      <Text color="fg.error" role="status">
        Building client {data.version} failed: {data.error}
      </Text>
    );
  }
  if (data.state !== 'building') return null;
  const said = `${Math.round(data.percent)}% · ${data.step}`;
  return (
    <Progress.Root value={Math.round(data.percent)} max={100} size="sm">
      <HStack justify="space-between" wrap="wrap" gap="2" mb="1">
        <Progress.Label>Building client {data.version}</Progress.Label>
        <Progress.ValueText fontWeight="normal" color="fg.muted">
          {said}
        </Progress.ValueText>
      </HStack>
      <Progress.Track aria-label="Client build progress" aria-valuetext={said}>
        <Progress.Range />
      </Progress.Track>
    </Progress.Root>
  );
}
