import { Button, Field, HStack, IconButton, Input, Stack, Text } from '@chakra-ui/react';

export interface ParameterRow {
  key: number;
  name: string;
  value: string;
}

interface InitialParametersProps {
  rows: ParameterRow[];
  onChange: (rows: ParameterRow[]) => void;
  /** The server's complaints about one parameter, by its name. */
  errorsOf: (name: string) => string[] | undefined;
  /** The server's complaints about the parameters as a whole. */
  errors?: string[];
}

/** The create form's optional `name = value` rows, sent as the instance's first configuration. */
export function InitialParameters({ rows, onChange, errorsOf, errors }: InitialParametersProps) {
  const edit = (key: number, change: Partial<ParameterRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  const add = () => onChange([...rows, { key: Math.max(0, ...rows.map((row) => row.key)) + 1, name: '', value: '' }]);

  return (
    <Stack as="fieldset" gap="3">
      <Text as="legend" fontWeight="medium" fontSize="sm" mb="2">
        Initial parameters
      </Text>
      <Text color="fg.muted" fontSize="sm">
        Optional; checked as the configuration editor checks them. Everything else starts from the defaults.
      </Text>
      {rows.map((row, index) => {
        const rowErrors = row.name.trim() ? errorsOf(row.name.trim()) : undefined;
        return (
          <Field.Root key={row.key} invalid={!!rowErrors}>
            <HStack gap="2" align="start" w="full">
              <Input
                aria-label={`Parameter ${index + 1} name`}
                placeholder="name"
                spellCheck={false}
                value={row.name}
                onChange={(event) => edit(row.key, { name: event.target.value })}
              />
              <Text pt="2" aria-hidden="true">
                =
              </Text>
              <Input
                aria-label={`Parameter ${index + 1} value`}
                placeholder="value"
                spellCheck={false}
                value={row.value}
                onChange={(event) => edit(row.key, { value: event.target.value })}
              />
              <IconButton
                variant="ghost"
                aria-label={`Remove parameter ${index + 1}`}
                onClick={() => onChange(rows.filter((other) => other.key !== row.key))}
              >
                ✕
              </IconButton>
            </HStack>
            {rowErrors && <Field.ErrorText>{rowErrors.join(' ')}</Field.ErrorText>}
          </Field.Root>
        );
      })}
      {errors && (
        <Text color="fg.error" fontSize="sm">
          {errors.join(' ')}
        </Text>
      )}
      <HStack>
        <Button size="sm" variant="outline" onClick={add}>
          Add parameter
        </Button>
      </HStack>
    </Stack>
  );
}
