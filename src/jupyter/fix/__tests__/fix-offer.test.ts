import { offersFix } from '../fix-offer';

describe('the Fix with Agent button', () => {
  it('is offered for an error, not for the user’s own interrupt', () => {
    const error = (ename: string) => ({ output_type: 'error', ename });
    expect(offersFix([error('NameError')])).toBe(true);
    expect(offersFix([error('KeyboardInterrupt')])).toBe(false);
    expect(
      offersFix([{ output_type: 'stream' }, error('KeyboardInterrupt')])
    ).toBe(false);
    expect(offersFix([error('KeyboardInterrupt'), error('ValueError')])).toBe(
      true
    );
    expect(offersFix([{ output_type: 'execute_result' }])).toBe(false);
    expect(offersFix([])).toBe(false);
  });
});
