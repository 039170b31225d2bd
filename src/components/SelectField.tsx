import { Field, NativeSelect } from '@chakra-ui/react';

export interface Option {
  value: string;
  label: string;
}

interface SelectFieldProps {
  label: string;
  value: string;
  options: Option[];
  onChange: (value: string) => void;
  errors?: string[];
  /** Narrow, for a filter above a table. */
  width?: string;
}

/** A labelled native select: keyboard and screen readers get the platform's own control. */
export function SelectField({ label, value, options, onChange, errors, width }: SelectFieldProps) {
  return (
    <Field.Root invalid={!!errors?.length} w={width}>
      <Field.Label>{label}</Field.Label>
      <NativeSelect.Root>
        <NativeSelect.Field value={value} onChange={(event) => onChange(event.target.value)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
      {!!errors?.length && <Field.ErrorText>{errors.join(' ')}</Field.ErrorText>}
    </Field.Root>
  );
}
