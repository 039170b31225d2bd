import { Badge, Button, Code, HStack, List, Text } from '@chakra-ui/react';
import type { ConfigParameter, ConfigRevision, Instance } from '../../../contracts/instances';
import { useAppDispatch } from '../../app/hooks';
import type { Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { PagedTable } from '../../components/PagedTable';
import { Section } from '../../components/Section';
import { useListParams } from '../../components/useListParams';
import { useConfigRevisionsQuery } from './configApi';
import { inUnit } from '../../../contracts/parameterUnits';
import { revisionRestoreRequested } from './configurationSaga';

/** A revision's changes are listed up to this many; the rest are counted. */
const changesShown = 5;

/** A parameter's unit by its name, so a revision reads like the review did (`16384 8kB → 8192 8kB`, not `16384 → 64MB`). */
type Units = ReadonlyMap<string, ConfigParameter['unit']>;

function Changes({ changes, units }: { changes: ConfigRevision['changes']; units: Units }) {
  if (changes.length === 0) return <Text color="fg.muted">No changes</Text>;
  const more = changes.length - changesShown;
  return (
    <List.Root gap="0.5" listStyleType="none" fontSize="sm">
      {changes.slice(0, changesShown).map(({ name, from, to }) => (
        <List.Item key={name}>
          <Code>{name}</Code>: {from === null ? 'default' : inUnit(from, units.get(name) ?? null)} → {inUnit(to, units.get(name) ?? null)}
        </List.Item>
      ))}
      {more > 0 && <List.Item color="fg.muted">and {more} more</List.Item>}
    </List.Root>
  );
}

/** Every saved change of the configuration, newest first; an older one can be restored. */
export function RevisionsSection({ instance, currentRevision, units }: { instance: Pick<Instance, 'id' | 'name'>; currentRevision: number; units: Units }) {
  const dispatch = useAppDispatch();
  const list = useListParams({ prefix: 'revisions' });
  const revisions = useConfigRevisionsQuery({ instanceId: instance.id, page: list.params.page, pageSize: list.params.pageSize });

  const columns: Column<ConfigRevision>[] = [
    {
      key: 'revision',
      header: 'Revision',
      cell: ({ revision }) => (
        <HStack gap="2">
          <span>{revision}</span>
          {revision === currentRevision && (
            <Badge colorPalette="green" variant="subtle">
              current
            </Badge>
          )}
        </HStack>
      ),
    },
    { key: 'createdAt', header: 'Saved', cell: ({ createdAt }) => <DateTime value={createdAt} /> },
    { key: 'author', header: 'By', cell: ({ author }) => author ?? 'Warden' },
    { key: 'changes', header: 'Changes', cell: ({ changes }) => <Changes changes={changes} units={units} /> },
    {
      key: 'actions',
      header: 'Actions',
      hiddenHeader: true,
      numeric: true,
      cell: ({ revision }) =>
        revision !== currentRevision && (
          <Button
            size="xs"
            variant="outline"
            aria-label={`Restore revision ${revision}`}
            onClick={() => dispatch(revisionRestoreRequested({ instance, revision }))}
          >
            Restore
          </Button>
        ),
    },
  ];

  return (
    <Section title="Revisions" description="Every saved change: who made it, when, and what it changed.">
      <PagedTable
        label="Revisions"
        columns={columns}
        rowKey={({ revision }) => String(revision)}
        emptyText="No saved changes yet."
        query={revisions}
        list={list}
        sortable={false}
        pagerLabel="Pages of revisions"
      />
    </Section>
  );
}
