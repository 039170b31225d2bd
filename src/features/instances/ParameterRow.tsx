import { Badge, Box, Button, Field, HStack, Input, InputGroup, Stack, Switch, Text } from '@chakra-ui/react';
import { memo } from 'react';
import { Select } from '../../components/Select';
import type { ConfigParameter } from '../../../contracts/instances';
import { quoteValue } from '../../../contracts/parameterUnits';
import { boolValue, boundsText, isOn } from './configDraft';

interface ParameterRowProps {
  parameter: ConfigParameter;
  /** What the editor shows: the value typed, else the saved one. */
  value: string;
  changed: boolean;
  /** A saved value of it waits for a restart: the value shown is the one still running. */
  pending: boolean;
  /** The value's local problem (bounds, type), checked as it is typed. */
  problem: string | null;
  /** What the server said about the value at the last save. */
  serverErrors: string[] | undefined;
  onChange: (parameter: ConfigParameter, value: string) => void;
}

/** How a change of this parameter takes effect. */
export function ApplyBadge({ apply }: { apply: ConfigParameter['apply'] }) {
  return (
    <Badge
      colorPalette={apply === 'restart' ? 'orange' : 'green'}
      variant="subtle"
      title={apply === 'restart' ? 'A change takes effect after a restart' : 'A change takes effect with a reload'}
    >
      {apply}
    </Badge>
  );
}

/** Who may change a parameter the caller may not: the policy's own words. */
function PolicyBadge({ parameter }: { parameter: ConfigParameter }) {
  if (parameter.editable) return null;
  return (
    <Badge colorPalette="gray" variant="outline" title={parameter.reason ?? undefined}>
      {parameter.policy === 'managed' ? 'managed by Warden' : 'admins only'}
    </Badge>
  );
}

function Editor({ parameter, value, onChange }: Pick<ParameterRowProps, 'parameter' | 'value' | 'onChange'>) {
  const set = (next: string) => onChange(parameter, next);
  switch (parameter.type) {
    case 'bool':
      return (
        <Switch.Root checked={isOn(value)} onCheckedChange={({ checked }) => set(boolValue(parameter, checked))}>
          {/* The row's label names it; the words beside it only say the state. */}
          <Switch.HiddenInput aria-label={parameter.name} />
          <Switch.Control />
          <Switch.Label aria-hidden="true">{isOn(value) ? 'on' : 'off'}</Switch.Label>
        </Switch.Root>
      );
    case 'enum': {
      const options = parameter.enumValues ?? [];
      return (
        <Select
          value={value}
          // A value the list lacks (typed in the raw view) stays visible instead of silently changing.
          options={[...(options.includes(value) ? [] : [value]), ...options].map((option) => ({ value: option, label: option }))}
          onChange={set}
        />
      );
    }
    case 'integer':
    case 'real':
      // Text, not type=number: postgresql.conf also takes values with units (128MB, 5min).
      return (
        <InputGroup endAddon={parameter.unit ?? undefined}>
          <Input
            inputMode={parameter.type === 'integer' ? 'numeric' : 'decimal'}
            fontFamily="mono"
            value={value}
            onChange={(event) => set(event.target.value)}
          />
        </InputGroup>
      );
    case 'string':
      return <Input fontFamily="mono" value={value} onChange={(event) => set(event.target.value)} />;
  }
}

/** One parameter: its name, what it does, how it applies, and the editor its type calls for. */
export const ParameterRow = memo(function ParameterRow({ parameter, value, changed, pending, problem, serverErrors, onChange }: ParameterRowProps) {
  const messages = [...(problem ? [problem] : []), ...(serverErrors ?? [])];
  const bounds = parameter.type === 'integer' || parameter.type === 'real' ? boundsText(parameter) : null;
  const facts = [`Default: ${parameter.default === null ? 'none' : quoteValue(parameter.default)}`, bounds && `Range: ${bounds}`];

  return (
    <Box as="li" py="3" borderBottomWidth="1px" borderColor="border.muted">
      <Field.Root invalid={messages.length > 0}>
        <Stack direction={{ base: 'column', lg: 'row' }} gap={{ base: '2', lg: '6' }} w="full">
          <Stack flex="1" gap="1" minW="0">
            <HStack wrap="wrap" gap="2">
              <Field.Label fontFamily="mono" wordBreak="break-all">
                {parameter.name}
              </Field.Label>
              <ApplyBadge apply={parameter.apply} />
              <PolicyBadge parameter={parameter} />
              {pending && (
                <Badge colorPalette="orange" variant="solid" title="A saved value takes effect at the next restart; the value shown is the running one">
                  pending restart
                </Badge>
              )}
              {changed && (
                <Badge colorPalette="blue" variant="solid">
                  changed
                </Badge>
              )}
            </HStack>
            {parameter.description && (
              <Text fontSize="sm" color="fg.muted">
                {parameter.description}
              </Text>
            )}
          </Stack>
          <Stack w={{ base: 'full', lg: 'sm' }} flexShrink="0" gap="1">
            {parameter.editable ? (
              <Editor parameter={parameter} value={value} onChange={onChange} />
            ) : (
              // Read-only, with the reason: the value is Warden's or an admin's to set.
              <Input fontFamily="mono" value={value} readOnly aria-readonly="true" variant="subtle" />
            )}
            <Field.HelperText>{facts.filter(Boolean).join(' · ')}</Field.HelperText>
            {!parameter.editable && parameter.reason && <Field.HelperText>{parameter.reason}</Field.HelperText>}
            {messages.length > 0 && <Field.ErrorText>{messages.join(' ')}</Field.ErrorText>}
            {changed && (
              <HStack gap="2" fontSize="sm" color="fg.muted">
                <Text>Saved: {quoteValue(parameter.value)}</Text>
                <Button size="2xs" variant="ghost" aria-label={`Undo the change to ${parameter.name}`} onClick={() => onChange(parameter, parameter.value)}>
                  Undo
                </Button>
              </HStack>
            )}
          </Stack>
        </Stack>
      </Field.Root>
    </Box>
  );
});
