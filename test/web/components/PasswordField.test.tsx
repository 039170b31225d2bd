import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { passwordRules as contractRules } from '../../../contracts/auth';
import { passwordRules } from '../../../contracts/passwordRules';
import { PasswordField } from '../../../src/components/PasswordField';
import { renderUi } from './renderUi';

function NewPassword() {
  const [value, setValue] = useState('');
  return <PasswordField label="New password" value={value} onChange={setValue} />;
}

const ruleStates = () =>
  within(screen.getByRole('list', { name: 'Password rules' }))
    .getAllByRole('listitem')
    // The tick itself is decoration (aria-hidden); the words say met or not.
    .map((item) => item.textContent?.replace(/^[✓○]/, ''));

describe('PasswordField', () => {
  it('ticks each rule as soon as the password meets it', async () => {
    const user = userEvent.setup();
    renderUi(<NewPassword />);
    expect(ruleStates()).toEqual([
      'At least 8 characters (not met)',
      'A digit (0–9) (not met)',
      'A lowercase letter (a–z) (not met)',
      'An uppercase letter (A–Z) (not met)',
      'A symbol (not a letter or digit) (not met)',
    ]);

    await user.type(screen.getByLabelText('New password'), 'abc1');
    expect(ruleStates()).toEqual([
      'At least 8 characters (not met)',
      'A digit (0–9) (met)',
      'A lowercase letter (a–z) (met)',
      'An uppercase letter (A–Z) (not met)',
      'A symbol (not a letter or digit) (not met)',
    ]);

    await user.type(screen.getByLabelText('New password'), 'Def!');
    expect(ruleStates().every((text) => text?.endsWith('(met)'))).toBe(true);
  });

  it('shows the server’s words about the field', () => {
    renderUi(
      <PasswordField label="New password" value="x" onChange={() => {}} errors={['Passwords must be at least 8 characters.']} />,
    );
    expect(screen.getByText('Passwords must be at least 8 characters.')).toBeInTheDocument();
    expect(screen.getByLabelText('New password')).toHaveAttribute('aria-invalid', 'true');
  });

  it('uses the very rules of the contract, each with the code the server reports', () => {
    expect(contractRules).toBe(passwordRules);
    expect(passwordRules.map((rule) => rule.code)).toEqual([
      'PasswordTooShort',
      'PasswordRequiresDigit',
      'PasswordRequiresLower',
      'PasswordRequiresUpper',
      'PasswordRequiresNonAlphanumeric',
    ]);
  });
});
