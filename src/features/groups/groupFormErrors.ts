import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';
import { errorStatus, problemText } from '../../api/problemText';
import { fieldErrors, type FieldErrors } from '../../components/fieldErrors';

/** A group form's errors by field; a 409 is a name another group has. */
export function groupFormErrors(error: FetchBaseQueryError | SerializedError | undefined): FieldErrors {
  if (errorStatus(error) === 409) return { name: [problemText(error) ?? 'Another group has this name.'] };
  return fieldErrors(error);
}
