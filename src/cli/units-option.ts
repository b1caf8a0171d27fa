/** `--units`, shared by the commands that print values (report, diff): auto, or one time unit. */
import { Option } from 'commander';
import { UserError } from '../base/errors.js';
import { parseUnits, UNIT_CHOICES, type UnitChoice } from '../base/units.js';

export function unitsOption(): Option {
  return new Option('--units <unit>', `time unit of the values: ${UNIT_CHOICES.join(', ')} (default auto: chosen for the magnitude; counts get k, M, G)`).argParser(
    (text: string): UnitChoice => {
      const u = parseUnits(text);
      if (!u) throw new UserError(`--units ${text}: not a unit; use ${UNIT_CHOICES.join(', ')}`, 2);
      return u;
    },
  );
}
