// The agent card's skill examples as prompts to start from, while the message is empty.
import type { SkillExample } from '../../../../shared/suggestions.ts';

export function SkillExamples({ examples, onPick }: { examples: SkillExample[]; onPick: (text: string) => void }) {
  if (examples.length === 0) return null;
  return (
    <div className="composer__examples" role="group" aria-label="Examples from the agent card" data-testid="skill-examples">
      <span className="hint">Try:</span>
      {examples.slice(0, 6).map((e) => (
        <button key={e.text} type="button" className="chip" title={`Skill: ${e.skill_name}`} onClick={() => onPick(e.text)} data-testid="skill-example">
          {e.text}
        </button>
      ))}
    </div>
  );
}
