import { Field, Input, Textarea } from '@chakra-ui/react';
import type { GroupRequest } from '../../../contracts/groups';
import type { FieldErrors } from '../../components/fieldErrors';

/** What these fields edit: the quota has its own section. */
type GroupText = Required<Pick<GroupRequest, 'name' | 'description'>>;

interface GroupFieldsProps {
  value: GroupText;
  onChange: (value: GroupText) => void;
  errors: FieldErrors;
  autoFocus?: boolean;
}

/** Name and description, as creating and editing a group both ask for them. */
export function GroupFields({ value, onChange, errors, autoFocus }: GroupFieldsProps) {
  return (
    <>
      <Field.Root required invalid={!!errors.name}>
        <Field.Label>Name</Field.Label>
        <Input
          autoFocus={autoFocus}
          maxLength={80}
          value={value.name}
          onChange={(event) => onChange({ ...value, name: event.target.value })}
        />
        {errors.name && <Field.ErrorText>{errors.name.join(' ')}</Field.ErrorText>}
      </Field.Root>
      <Field.Root invalid={!!errors.description}>
        <Field.Label>Description</Field.Label>
        <Textarea
          rows={3}
          maxLength={1000}
          value={value.description}
          onChange={(event) => onChange({ ...value, description: event.target.value })}
        />
        {errors.description && <Field.ErrorText>{errors.description.join(' ')}</Field.ErrorText>}
      </Field.Root>
    </>
  );
}
