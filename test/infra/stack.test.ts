// The template and bundle assertions on the default synthesis (both stages, cdk.json's flags,
// cdk-nag, CDK's template validation, the assets bundled) run in this one jest file: loading
// aws-cdk-lib and cdk-nag, starting the validation engine and bundling cost seconds of CPU in
// every file that does it, and these specs only read the one synthesis (test/infra/synth.ts). Each spec stays in its own file,
// named for what it checks. The app with the account role kept is synthesised here too, reusing
// all of that, and so are the stage-configuration variants (one more app, no second engine start).

import './api.spec';
import './data-and-observability.spec';
import './functions.spec';
import './nag.spec';
import './dashboard.spec';
import './local-context.spec';
import './releases.spec';
import './pets.spec';
import './account-role-keep.spec';
import './stage-config.spec';
import './bundles.spec';
import './cost.spec';
import './pipeline.spec';
import './pipeline-permissions.spec';
import './stage-isolation.spec';
import './policy-actions.spec';
import './cfn-lint.spec';
import './v2.spec';
import './sync-watch.spec';
import './index-canary.spec';
import './firewall.spec';
import './retained-data.spec';
import './webhooks.spec';
import './webhook-delivery.spec';
