import { Button, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { formatBytes } from '../../../contracts/backupValues';
import { quotaLimits, type Group } from '../../../contracts/groups';
import { otherErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { Section } from '../../components/Section';
import { groupFormErrors } from './groupFormErrors';
import { useUpdateGroupMutation } from './groupsApi';
import { parseLimit } from './parseLimit';

// Backup storage is typed in gigabytes (10^9 bytes, as formatBytes shows them) and sent in bytes.
const gigabyte = 1e9;

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

/** What the group uses against each limit, e.g. "3 of 5 instances", "1.2 GB of 10 GB backups". */
export function quotaUsage(group: Group): { instances: string; backups: string } {
  const { maxInstances, maxBackupBytes } = group.quota;
  return {
    instances:
      maxInstances === null
        ? `${plural(group.instanceCount, 'instance')} (unlimited)`
        : `${group.instanceCount} of ${plural(maxInstances, 'instance')}`,
    backups:
      maxBackupBytes === null
        ? `${formatBytes(group.backupBytes)} of backups (unlimited)`
        : `${formatBytes(group.backupBytes)} of ${formatBytes(maxBackupBytes)} backups`,
  };
}

/**
 * A group's quota: how much of it the group uses, for everyone who sees the group; two fields to
 * change it, for admins. Mount it keyed by the saved quota, so the fields start from it.
 */
export function QuotaSection({ group, canEdit }: { group: Group; canEdit: boolean }) {
  const [updateGroup, { isLoading, error }] = useUpdateGroupMutation();
  const { maxInstances, maxBackupBytes } = group.quota;
  const [instances, setInstances] = useState(maxInstances === null ? '' : String(maxInstances));
  const [gigabytes, setGigabytes] = useState(maxBackupBytes === null ? '' : String(maxBackupBytes / gigabyte));
  const [touched, setTouched] = useState(false);
  const usage = quotaUsage(group);

  const instancesLimit = parseLimit(instances, { whole: true, min: 0, max: quotaLimits.maxInstances, empty: 'unlimited' });
  const bytesLimit = parseLimit(gigabytes, { whole: false, min: 0, max: quotaLimits.maxBackupBytes / gigabyte, empty: 'unlimited' });
  const localErrors = {
    maxInstances: 'error' in instancesLimit ? [instancesLimit.error] : undefined,
    maxBackupBytes: 'error' in bytesLimit ? [bytesLimit.error] : undefined,
  };
  const serverErrors = groupFormErrors(error);
  const invalid = !!(localErrors.maxInstances || localErrors.maxBackupBytes);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    if ('error' in instancesLimit || 'error' in bytesLimit) return;
    const bytes = bytesLimit.value === null ? null : Math.round(bytesLimit.value * gigabyte);
    updateGroup({ groupId: group.id, name: group.name, quota: { maxInstances: instancesLimit.value, maxBackupBytes: bytes } });
  };

  return (
    <Section title="Quota" description="Limits on what the group's members can create. Empty is unlimited.">
      <Stack gap="1">
        <Text>{usage.instances}</Text>
        <Text>{usage.backups}</Text>
      </Stack>
      {canEdit && (
        <form onSubmit={submit} aria-busy={isLoading} noValidate>
          <Stack gap="4" maxW="lg">
            {otherErrors(serverErrors, []).map((message) => (
              <Notice key={message} status="error" title={message} />
            ))}
            <Field.Root invalid={touched && !!localErrors.maxInstances}>
              <Field.Label>Most instances</Field.Label>
              <Input inputMode="numeric" placeholder="unlimited" value={instances} onChange={(event) => setInstances(event.target.value)} />
              {touched && localErrors.maxInstances && <Field.ErrorText>{localErrors.maxInstances.join(' ')}</Field.ErrorText>}
            </Field.Root>
            <Field.Root invalid={touched && !!localErrors.maxBackupBytes}>
              <Field.Label>Most backup storage (GB)</Field.Label>
              <Input inputMode="decimal" placeholder="unlimited" value={gigabytes} onChange={(event) => setGigabytes(event.target.value)} />
              {touched && localErrors.maxBackupBytes && <Field.ErrorText>{localErrors.maxBackupBytes.join(' ')}</Field.ErrorText>}
            </Field.Root>
            <HStack>
              <Button type="submit" loading={isLoading} disabled={touched && invalid}>
                Save quota
              </Button>
            </HStack>
          </Stack>
        </form>
      )}
    </Section>
  );
}
