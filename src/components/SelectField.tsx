import { Field } from '@chakra-ui/react';
import { Select, type SelectOption } from './Select';

export type Option = SelectOption;

interface SelectFieldProps {
  label: string;
  value: string;
  options: readonly Option[];
  onChange: (value: string) => void;
  errors?: string[];
  /** Narrow, for a filter above a table. */
  width?: string;
}

/** A labelled dropdown: the field's label names it and its errors describe it. */
export function SelectField({ label, value, options, onChange, errors, width }: SelectFieldProps) {
  return (
    <Field.Root invalid={!!errors?.length} w={width}>
      <Field.Label>{label}</Field.Label>
      <Select value={value} options={options} onChange={onChange} />
      {!!errors?.length && <Field.ErrorText>{errors.join(' ')}</Field.ErrorText>}
    </Field.Root>
  );
}
