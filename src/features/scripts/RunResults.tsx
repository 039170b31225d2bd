import { Badge, Box, Button, Collapsible, HStack, Stack, Text } from '@chakra-ui/react';
import type { ScriptChange, ScriptResult } from '../../../contracts/scripts';
import { DataTable } from '../../components/DataTable';
import { formatDuration } from '../backups/backupLabels';
import { ResultGrid } from './ResultGrid';

/** The first line of a statement, as its panel's title. */
export const firstLine = (statement: string) => statement.trim().split('\n', 1)[0];

/** Statement times are fractions of a millisecond apart; the panel shows whole ones. */
const statementTime = (ms: number) => formatDuration(Math.round(ms));

/** How many rows a statement returned or changed, and how many of them the run kept. */
function rowsNote({ rows, rowCount, truncated, columns }: ScriptResult): string | null {
  if (rowCount === null || rowCount === undefined) return null;
  if (truncated) return `Showing the first ${rows?.length ?? 0} of ${rowCount} rows.`;
  const noun = rowCount === 1 ? 'row' : 'rows';
  return columns?.length ? `${rowCount} ${noun}` : `${rowCount} ${noun} affected`;
}

function StatementError({ result, onShowError }: { result: ScriptResult; onShowError: (result: ScriptResult) => void }) {
  const error = result.error!;
  const line = error.line ?? result.line;
  return (
    <Box borderLeftWidth="3px" borderColor="border.error" pl="3">
      <Text fontWeight="semibold" color="fg.error">
        {error.code ? `${error.code}: ` : ''}
        {error.message}
      </Text>
      {error.detail && <Text fontSize="sm">{error.detail}</Text>}
      {error.hint && <Text fontSize="sm">Hint: {error.hint}</Text>}
      <Button size="xs" variant="outline" mt="2" onClick={() => onShowError(result)}>
        Go to line {line}
        {error.position ? `, character ${error.position} of the statement` : ''}
      </Button>
    </Box>
  );
}

interface StatementPanelProps {
  result: ScriptResult;
  number: number;
  onShowError: (result: ScriptResult) => void;
}

/**
 * One statement: closed, its first line, line number, tag, rows and duration; open, its rows,
 * notices, output and error. The trigger's text keeps the full text colour: muted text is not
 * legible on the hovered button's tint.
 */
function StatementPanel({ result, number, onShowError }: StatementPanelProps) {
  const failed = !!result.error;
  const note = rowsNote(result);
  return (
    <Collapsible.Root defaultOpen={failed || !!result.columns?.length || !!result.output} borderWidth="1px" borderRadius="md" borderColor={failed ? 'border.error' : undefined}>
      <Collapsible.Trigger asChild>
        <Button variant="ghost" w="full" justifyContent="space-between" h="auto" py="2" px="3" whiteSpace="normal" textAlign="start">
          <HStack gap="3" minW="0">
            <Text as="span" fontSize="sm" flexShrink="0">
              Line {result.line}
            </Text>
            <Text as="span" fontFamily="mono" truncate>
              {firstLine(result.statement)}
            </Text>
          </HStack>
          <HStack gap="2" flexShrink="0" fontSize="sm">
            {failed ? <Badge colorPalette="red">Error</Badge> : result.command && <Badge variant="outline">{result.command}</Badge>}
            {note && !failed && <Text as="span">{note}</Text>}
            <Text as="span">{statementTime(result.durationMs)}</Text>
          </HStack>
        </Button>
      </Collapsible.Trigger>
      <Collapsible.Content>
        <Stack gap="3" px="3" pb="3" role="group" aria-label={`Statement ${number}`}>
          <Box as="pre" fontFamily="mono" fontSize="sm" whiteSpace="pre-wrap" bg="bg.subtle" p="2" borderRadius="sm">
            {result.statement}
          </Box>
          {result.error && <StatementError result={result} onShowError={onShowError} />}
          {!!result.columns?.length && <ResultGrid label={`Rows of statement ${number}`} columns={result.columns} rows={result.rows ?? []} />}
          {result.truncated && note && (
            <Text fontSize="sm" color="fg.muted">
              {note}
            </Text>
          )}
          {result.output && (
            <Box as="pre" fontFamily="mono" fontSize="sm" whiteSpace="pre-wrap" aria-label={`Output of statement ${number}`}>
              {result.output}
            </Box>
          )}
          {!!result.notices?.length && (
            <Box as="ul" fontSize="sm" ps="5" aria-label={`Notices of statement ${number}`}>
              {result.notices.map((notice, at) => (
                <li key={at}>
                  <Text as="span" fontWeight="semibold">
                    {notice.severity}
                  </Text>
                  : {notice.message}
                </li>
              ))}
            </Box>
          )}
        </Stack>
      </Collapsible.Content>
    </Collapsible.Root>
  );
}

export function StatementResults({ results, onShowError }: { results: readonly ScriptResult[]; onShowError: (result: ScriptResult) => void }) {
  return (
    <Stack gap="2">
      {results.map((result, index) => (
        <StatementPanel key={`${index}:${result.line}`} result={result} number={index + 1} onShowError={onShowError} />
      ))}
    </Stack>
  );
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** Per table: rows before and after the script, and the difference. */
export function ChangesTable({ changes }: { changes: readonly ScriptChange[] }) {
  return (
    <DataTable
      label="Changes"
      columns={[
        { key: 'table', header: 'Table', cell: (change) => change.table },
        { key: 'before', header: 'Rows before', cell: (change) => change.before, numeric: true },
        { key: 'after', header: 'Rows after', cell: (change) => change.after, numeric: true },
        { key: 'delta', header: 'Difference', cell: (change) => signed(change.after - change.before), numeric: true },
      ]}
      rows={[...changes]}
      rowKey={(change) => change.table}
      loading={false}
      emptyText="No table changed."
    />
  );
}
