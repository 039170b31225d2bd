import { Button, Field, HStack, Stack, Switch, Tabs, Text, Textarea } from '@chakra-ui/react';
import { useCallback, useMemo, useState } from 'react';
import type { ConfigParameter, InstanceConfig } from '../../../contracts/instances';
import { problemOf } from '../../api/problemText';
import { FormDialog } from '../../components/FormDialog';
import { EmptyState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { SearchInput } from '../../components/SearchInput';
import { Section } from '../../components/Section';
import { useUpdateConfigurationMutation, type ApplyChoice } from './configApi';
import { changesOf, editsFromRaw, formatRaw, parseRaw, problemsOf, withValue, type Edits } from './configDraft';
import { ParameterRow } from './ParameterRow';
import { ReviewChangesForm } from './ReviewChangesForm';

type ServerErrors = Readonly<Record<string, string[]>>;

/** A 400's errors by parameter name; schema validation may key them by path (`parameters.x`, `/parameters/x`). */
function serverErrorsOf(error: Parameters<typeof problemOf>[0]): ServerErrors {
  const errors: Record<string, string[]> = {};
  for (const [key, messages] of Object.entries(problemOf(error)?.errors ?? {})) {
    (errors[key.replace(/^\/?parameters[./]/, '')] ??= []).push(...messages);
  }
  return errors;
}

const without = (errors: ServerErrors, name: string) => {
  if (!(name in errors)) return errors;
  const { [name]: _dropped, ...rest } = errors;
  return rest;
};

const countOf = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

interface ConfigurationFormProps {
  instanceId: string;
  config: InstanceConfig;
}

/**
 * The parameters as a form generated from their metadata, or as `name = value` lines of the
 * changes; a review of the diff before saving; the server's refusals on the rows they concern.
 * What was typed stays until it is saved or undone.
 */
export function ConfigurationForm({ instanceId, config }: ConfigurationFormProps) {
  const { parameters } = config;
  const [edits, setEdits] = useState<Edits>({});
  const [serverErrors, setServerErrors] = useState<ServerErrors>({});
  const [search, setSearch] = useState('');
  const [changedOnly, setChangedOnly] = useState(false);
  const [view, setView] = useState<'form' | 'raw'>('form');
  const [rawText, setRawText] = useState('');
  const [reviewing, setReviewing] = useState(false);
  const [updateConfiguration, { isLoading: saving }] = useUpdateConfigurationMutation();

  const changes = useMemo(() => changesOf(parameters, edits), [parameters, edits]);
  const problems = useMemo(() => problemsOf(parameters, edits), [parameters, edits]);
  const problemCount = Object.keys(problems).length;
  const rawErrors = useMemo(() => parseRaw(rawText, parameters).errors, [rawText, parameters]);
  const known = useMemo(() => new Set(parameters.map(({ name }) => name)), [parameters]);
  const refused = Object.keys(serverErrors).filter((name) => known.has(name));
  const otherErrors = Object.entries(serverErrors).flatMap(([name, messages]) => (known.has(name) ? [] : messages));

  const change = useCallback((parameter: ConfigParameter, value: string) => {
    setEdits((current) => withValue(current, parameter, value));
    setServerErrors((current) => without(current, parameter.name));
  }, []);

  const changeRaw = (text: string) => {
    setRawText(text);
    const parsed = parseRaw(text, parameters);
    if (parsed.errors.length === 0) setEdits(editsFromRaw(parameters, parsed.values));
  };

  // Leaving the raw view needs readable lines (the Form tab is disabled until then), so the
  // edits always match the text and entering it again can write them out afresh.
  const changeView = (next: string) => {
    if (next === 'raw') setRawText(formatRaw(changes));
    setView(next === 'raw' ? 'raw' : 'form');
  };

  const discard = () => {
    setEdits({});
    setServerErrors({});
    setRawText('');
  };

  const save = async (apply: ApplyChoice) => {
    const values = Object.fromEntries(changes.map(({ name, to }) => [name, to]));
    const outcome = await updateConfiguration({ instanceId, parameters: values, apply });
    setReviewing(false);
    if (outcome.error) setServerErrors(serverErrorsOf(outcome.error));
    else discard();
  };

  const term = search.trim().toLowerCase();
  const shown = parameters.filter(
    ({ name, description }) =>
      (!changedOnly || name in edits || name in serverErrors) &&
      (term === '' || name.toLowerCase().includes(term) || description.toLowerCase().includes(term)),
  );
  const blocked = changes.length === 0 || problemCount > 0 || (view === 'raw' && rawErrors.length > 0);

  return (
    <Section
      title="Parameters"
      description={`${countOf(parameters.length, 'parameter')} · revision ${config.revision}`}
      actions={
        <HStack gap="2">
          <Button variant="outline" disabled={changes.length === 0 || saving} onClick={discard}>
            Discard changes
          </Button>
          <Button disabled={blocked} loading={saving} onClick={() => setReviewing(true)}>
            Review changes{changes.length > 0 ? ` (${changes.length})` : ''}
          </Button>
        </HStack>
      }
    >
      {problemCount > 0 && (
        <Text color="fg.error" fontSize="sm" role="status">
          Fix {countOf(problemCount, 'value')} before saving: {Object.keys(problems).join(', ')}.
        </Text>
      )}
      {(refused.length > 0 || otherErrors.length > 0) && (
        <Notice status="error" title="The server refused the changes; nothing was saved">
          {refused.length > 0 && `See ${refused.join(', ')}. `}
          {otherErrors.join(' ')}
        </Notice>
      )}

      <Tabs.Root value={view} onValueChange={({ value }) => changeView(value)} variant="line" lazyMount>
        <Tabs.List>
          <Tabs.Trigger value="form" disabled={view === 'raw' && rawErrors.length > 0}>
            Form
          </Tabs.Trigger>
          <Tabs.Trigger value="raw">Raw</Tabs.Trigger>
        </Tabs.List>

        <Tabs.Content value="form">
          <Stack gap="3">
            <HStack gap="4" wrap="wrap">
              <SearchInput label="Search parameters" value={search} onChange={setSearch} delayMs={150} />
              <Switch.Root checked={changedOnly} onCheckedChange={({ checked }) => setChangedOnly(checked)}>
                <Switch.HiddenInput />
                <Switch.Control />
                <Switch.Label>Changed only ({changes.length})</Switch.Label>
              </Switch.Root>
            </HStack>
            <Text color="fg.muted" fontSize="sm" aria-live="polite">
              Showing {shown.length} of {countOf(parameters.length, 'parameter')}
            </Text>
            {shown.length === 0 ? (
              <EmptyState title={changedOnly && term === '' ? 'No changed parameters.' : 'No parameters match.'}>
                <Button
                  size="sm"
                  variant="outline"
                  onClick={() => {
                    setSearch('');
                    setChangedOnly(false);
                  }}
                >
                  Show all parameters
                </Button>
              </EmptyState>
            ) : (
              <Stack as="ul" aria-label="Parameters" gap="0" listStyleType="none">
                {shown.map((parameter) => (
                  <ParameterRow
                    key={parameter.name}
                    parameter={parameter}
                    value={edits[parameter.name] ?? parameter.value}
                    changed={parameter.name in edits}
                    pending={config.pendingRestart.includes(parameter.name)}
                    problem={problems[parameter.name] ?? null}
                    serverErrors={serverErrors[parameter.name]}
                    onChange={change}
                  />
                ))}
              </Stack>
            )}
          </Stack>
        </Tabs.Content>

        <Tabs.Content value="raw">
          <Field.Root invalid={rawErrors.length > 0}>
            <Field.Label>Changed parameters, one name = value a line</Field.Label>
            <Textarea
              fontFamily="mono"
              rows={Math.min(20, Math.max(6, rawText.split('\n').length + 1))}
              spellCheck={false}
              value={rawText}
              onChange={(event) => changeRaw(event.target.value)}
            />
            <Field.HelperText>
              As in postgresql.conf: quote values with spaces ('a b'), double a quote inside one. A line that is
              removed undoes its change.
            </Field.HelperText>
            {rawErrors.length > 0 && (
              <Field.ErrorText>
                <Stack as="ul" gap="0.5" listStyleType="none">
                  {rawErrors.map((error) => (
                    <li key={error}>{error}</li>
                  ))}
                </Stack>
              </Field.ErrorText>
            )}
          </Field.Root>
        </Tabs.Content>
      </Tabs.Root>

      <FormDialog title="Review changes" open={reviewing} onOpenChange={setReviewing}>
        <ReviewChangesForm changes={changes} busy={saving} onSave={save} />
      </FormDialog>
    </Section>
  );
}
