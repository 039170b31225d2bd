import { Box, Button, Checkbox, HStack, Kbd, Stack, Text } from '@chakra-ui/react';
import { lazy, Suspense, useMemo, useRef, useState } from 'react';
import { useParams } from 'react-router-dom';
import type { Instance } from '../../../contracts/instances';
import { defaultPageSize } from '../../../contracts/pageLimits';
import { routePath, routes } from '../../../contracts/routes';
import type { Script } from '../../../contracts/scripts';
import { errorStatus } from '../../api/problemText';
import { DateTime } from '../../components/DateTime';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { Section } from '../../components/Section';
import { TextLink } from '../../components/TextLink';
import { useInstanceBackupsQuery } from '../backups/backupsApi';
import { useInstanceQuery } from '../instances/instancesApi';
import { useHubGroup } from '../realtime/useHubGroup';
import { completionSchema } from './completionSchema';
import { errorMarks } from './editorMarks';
import { RunHistory } from './RunHistory';
import { RunView } from './RunView';
import type { ScriptEditorHandle } from './ScriptEditor';
import { useRunScriptMutation, useSaveScriptMutation, useScriptQuery, useScriptRunQuery, useScriptRunsQuery, useScriptSchemaQuery } from './scriptsApi';
import { newestBackup, SourcePicker } from './SourcePicker';
import { usePageKeys } from './usePageKeys';
import { useUnsavedGuard } from './useUnsavedGuard';

// CodeMirror is a big library: it loads with the editor, never with the console's other screens.
const ScriptEditor = lazy(() => import('./ScriptEditor'));

const title = 'Script';
const description = 'The instance’s saved script, run against a throwaway copy so the instance itself never changes.';

export function InstanceScriptPage() {
  const { id = '' } = useParams();
  // Live: the phases and progress of this instance's runs (ScriptRunUpdated goes to its viewers).
  useHubGroup('Instance', id);
  const instance = useInstanceQuery(id);
  const script = useScriptQuery(id);

  if (instance.isLoading || script.isLoading) {
    return (
      <>
        <PageHeader title={title} description={description} />
        <LoadingState label="Loading the script…" />
      </>
    );
  }
  if (!instance.data || !script.data) {
    return (
      <>
        <PageHeader title={title} description={description} />
        {errorStatus(instance.error ?? script.error) === 404 ? (
          <EmptyState title="No such instance" description="There is no instance with this id, or you cannot see it.">
            <TextLink to={routes.instances.path}>Back to instances</TextLink>
          </EmptyState>
        ) : (
          <ErrorState
            title="Could not load the script."
            onRetry={() => {
              void instance.refetch();
              void script.refetch();
            }}
          />
        )}
      </>
    );
  }
  // Keyed: another instance's page starts from its own saved script.
  return <ScriptWorkbench key={id} instance={instance.data} saved={script.data} />;
}

/** The draft follows the saved script until it is edited; after a save they agree again. */
function useDraft(saved: string) {
  const [draft, setDraft] = useState(saved);
  const [base, setBase] = useState(saved);
  if (saved !== base) {
    setBase(saved);
    if (draft === base) setDraft(saved);
  }
  return [draft, setDraft, draft !== saved] as const;
}

function ScriptWorkbench({ instance, saved }: { instance: Instance; saved: Script }) {
  const instanceId = instance.id;
  const [draft, setDraft, dirty] = useDraft(saved.script);
  const [source, setSource] = useState(newestBackup);
  const [continueOnError, setContinueOnError] = useState(false);
  const [chosenRun, setChosenRun] = useState<string | null>(null);
  const editor = useRef<ScriptEditorHandle>(null);

  const [saveScript, saving] = useSaveScriptMutation();
  const [runScript, starting] = useRunScriptMutation();
  const backups = useInstanceBackupsQuery({ instanceId, kind: 'database', status: 'succeeded', page: 1, pageSize: defaultPageSize });
  // Until one is chosen or started, the newest run is on show (the history's first page shares this call).
  const newest = useScriptRunsQuery({ instanceId, page: 1, pageSize: defaultPageSize });
  const shownId = chosenRun ?? newest.data?.items[0]?.id ?? null;
  const shown = useScriptRunQuery({ instanceId, runId: shownId ?? '' }, { skip: shownId === null });
  const run = shown.data?.id === shownId ? shown.data : undefined;
  const active = !!run && run.finishedAt === null;
  // With no backup the server refuses the newest one rather than run on an empty database: the person chooses.
  const noBackup = backups.data?.total === 0;
  const mustChoose = noBackup && source === newestBackup;

  useUnsavedGuard(dirty);

  const save = () => {
    if (dirty && !saving.isLoading) void saveScript({ instanceId, script: draft });
  };
  const start = async () => {
    if (active || starting.isLoading || draft.trim() === '' || mustChoose) return;
    const { data } = await runScript({ instanceId, script: draft, source, continueOnError });
    if (data) setChosenRun(data.id);
  };
  usePageKeys({ save, run: () => void start() });

  // The failed statements are marked while the editor holds the script that ran.
  const ran = run?.script;
  const results = run?.results;
  const marks = useMemo(() => (results && ran === draft ? errorMarks(results) : []), [results, ran, draft]);
  // Completion offers the instance's own tables with their columns (read again on each visit and on
  // demand: a run changes only its sandbox), plus the tables the newest backup and the run on show know of.
  // (By the parts it reads: progress events replace the run, and each new namespace would reconfigure the editor.)
  const schema = useScriptSchemaQuery(instanceId, { skip: instance.type !== 'pg', refetchOnMountOrArgChange: true });
  const newestContents = backups.data?.items[0]?.contents;
  const changes = run?.changes;
  const readTables = schema.data?.tables;
  const completion = useMemo(() => {
    const fromBackup = newestContents?.databases?.flatMap((database) => Object.keys(database.rows)) ?? [];
    return completionSchema([...fromBackup, ...(changes?.map((change) => change.table) ?? [])], readTables);
  }, [newestContents, changes, readTables]);

  return (
    <>
      <PageHeader title={title} description={`The saved script of ${instance.name}, run against a throwaway copy so the instance itself never changes.`} />
      <Stack gap="6">
        <TextLink to={routePath('singleInstance', { id: instanceId })}>Back to {instance.name}</TextLink>
        <Section
          title="Editor"
          description={
            saved.updatedAt ? (
              <>
                Saved <DateTime value={saved.updatedAt} />
                {saved.updatedBy ? ` by ${saved.updatedBy}` : ''}.
              </>
            ) : (
              'Not saved yet.'
            )
          }
          actions={
            <HStack gap="3">
              {dirty && (
                <Text color="fg.warning" fontSize="sm" role="status">
                  Unsaved changes
                </Text>
              )}
              {instance.type === 'pg' && (
                <Button size="sm" variant="outline" onClick={() => void schema.refetch()} loading={schema.isFetching}>
                  Reload tables
                </Button>
              )}
              <Button size="sm" onClick={save} disabled={!dirty} loading={saving.isLoading}>
                Save <Kbd size="sm">Ctrl+S</Kbd>
              </Button>
            </HStack>
          }
        >
          <Box borderWidth="1px" borderRadius="md" overflow="hidden">
            <Suspense fallback={<LoadingState label="Loading the editor…" />}>
              <ScriptEditor
                ref={editor}
                value={draft}
                onChange={setDraft}
                engine={instance.type}
                completion={completion}
                marks={marks}
                label={instance.type === 'pg' ? 'SQL script' : 'etcd commands, one a line'}
              />
            </Suspense>
          </Box>
          {schema.data?.unreadable && (
            <Text fontSize="sm" color="fg.muted">
              Completion offers no columns: {schema.data.unreadable}
            </Text>
          )}
          {instance.type === 'etcd' && (
            <Text fontSize="sm" color="fg.muted">
              One command a line: put KEY VALUE, get KEY, get --prefix PREFIX, del KEY.
            </Text>
          )}
        </Section>

        <Section title="Run" description="The script runs on a throwaway copy as the instance’s owner role; the copy is removed afterwards.">
          {mustChoose && (
            <Notice status="warning" title="This instance has no backup yet">
              Run the script on a copy of the live instance or on an empty instance: choose one under “Run on a copy of”. Without a backup there
              is nothing else to copy.
            </Notice>
          )}
          <HStack gap="6" align="end" wrap="wrap">
            <SourcePicker value={source} onChange={setSource} backups={backups.data?.items ?? []} noBackup={noBackup} />
            <Checkbox.Root checked={continueOnError} onCheckedChange={({ checked }) => setContinueOnError(checked === true)} pb="2">
              <Checkbox.HiddenInput />
              <Checkbox.Control />
              <Checkbox.Label>Continue after errors</Checkbox.Label>
            </Checkbox.Root>
            <Button onClick={() => void start()} disabled={active || draft.trim() === '' || mustChoose} loading={starting.isLoading}>
              Run <Kbd size="sm">Ctrl+Enter</Kbd>
            </Button>
          </HStack>
        </Section>

        <Section title="Results">
          <RunView
            instanceId={instanceId}
            run={run}
            loading={shownId !== null && shown.isFetching && !run}
            failed={shown.isError}
            onRetry={() => void shown.refetch()}
            onShowError={(mark) => editor.current?.goTo(mark)}
          />
        </Section>

        <Section title="History">
          <RunHistory instanceId={instanceId} shownId={shownId} onShow={setChosenRun} />
        </Section>
      </Stack>
    </>
  );
}
