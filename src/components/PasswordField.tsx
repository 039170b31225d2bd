import { Box, Field, Input, List, Text } from '@chakra-ui/react';
import { passwordRules } from '../../contracts/passwordRules';

export const meetsPasswordRules = (password: string) => passwordRules.every((rule) => rule.met(password));

/** The rules of DESIGN §7, each ticked as soon as the password being typed meets it. */
export function PasswordRules({ password }: { password: string }) {
  return (
    <List.Root aria-label="Password rules" listStyleType="none" gap="0.5" fontSize="sm">
      {passwordRules.map((rule) => {
        const met = rule.met(password);
        return (
          <List.Item key={rule.code} data-met={met} color={met ? 'fg.success' : 'fg.muted'} display="flex" gap="2">
            <Text as="span" aria-hidden="true" w="4" textAlign="center">
              {met ? '✓' : '○'}
            </Text>
            <span>
              {rule.text}
              <Box as="span" srOnly>
                {met ? ' (met)' : ' (not met)'}
              </Box>
            </span>
          </List.Item>
        );
      })}
    </List.Root>
  );
}

interface PasswordFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The server's complaints about this field (fieldErrors(...).password). */
  errors?: string[];
  /** A new password shows the rules live; the current one does not. */
  isNew?: boolean;
  autoFocus?: boolean;
}

export function PasswordField({ label, value, onChange, errors, isNew = true, autoFocus }: PasswordFieldProps) {
  return (
    <Field.Root required invalid={!!errors?.length}>
      <Field.Label>{label}</Field.Label>
      <Input
        type="password"
        autoComplete={isNew ? 'new-password' : 'current-password'}
        autoFocus={autoFocus}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      {isNew && <PasswordRules password={value} />}
      {!!errors?.length && <Field.ErrorText>{errors.join(' ')}</Field.ErrorText>}
    </Field.Root>
  );
}

interface RepeatPasswordFieldProps extends Pick<PasswordFieldProps, 'label' | 'value' | 'onChange'> {
  password: string;
  /** After a submit: any difference counts, not only a wrong character typed so far. */
  strict: boolean;
}

/** The new password typed again; it says so as soon as the two part ways. */
export function RepeatPasswordField({ label, value, onChange, password, strict }: RepeatPasswordFieldProps) {
  const differs = strict ? value !== password : !password.startsWith(value);
  return (
    <Field.Root required invalid={differs}>
      <Field.Label>{label}</Field.Label>
      <Input type="password" autoComplete="new-password" value={value} onChange={(event) => onChange(event.target.value)} />
      {differs && <Field.ErrorText>The passwords do not match.</Field.ErrorText>}
    </Field.Root>
  );
}
