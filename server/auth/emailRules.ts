/** As lenient as Identity's check: something, one @, something, and no spaces. */
export function isValidEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(email.trim());
}
