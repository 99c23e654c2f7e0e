import type { Messages } from "../messages.ts";

export const uk: Messages = {
  noAnswer: "(немає відповіді)",
  truncated: "(відповідь обрізано)",
  failed: "⚠️ {reason}",
  answerCut: "відповідь обірвано: {reason}",
  numberInLine: "⏳ зараз багато питань: ваше — {place, number}-е в черзі",
  busy: "⏳ Бот зараз перевантажений: спробуйте ще раз за хвилину.",

  errorUnexpected: "щось пішло не так на боці бота",
  errorApiKey: "чат-бот відхилив ключ API ({status})",
  errorPermission:
    "чат-бот відмовив у доступі ({status}): для спілкування потрібна платна підписка в обліковому записі чат-бота",
  errorNotFound:
    "чат-бота не знайдено ({status}): перевірте базову URL-адресу та ідентифікатор бота",
  errorBackendBusy: "чат-бот перевантажений ({status}); спробуйте ще раз трохи згодом",
  errorBackendFailed: "сервіс чат-бота дав збій ({status}); спробуйте ще раз пізніше",
  errorBackendRefused: "чат-бот відхилив запит ({status})",
  errorApi: "чат-бот повернув помилку (код {code})",
  errorApiDetail: "чат-бот повернув помилку (код {code}): {detail}",
  errorProtocol: "чат-бот надіслав відповідь, яку цей бот не може прочитати",
  errorNoResponse: "чат-бот не відповів вчасно",
  errorSilent: "чат-бот перестав надсилати відповідь",
  errorTooLong: "чат-бот відповідав довше, ніж {duration}",
  errorUnreachable: "не вдалося зв’язатися з чат-ботом",
  errorConnectionLost: "з’єднання втрачено",
  errorInterrupted: "перервано",
  errorStore: "сховище бота зараз недоступне; спробуйте ще раз трохи згодом",
  errorPlatformRateLimit: "платформа чату попросила бота надсилати повідомлення рідше",
  errorCannotPost: "бот не може писати тут",
  errorCannotPostBecause: "бот не може писати тут ({error})",
  errorRestarting:
    "бот перезапускається й не встиг відповісти на ваше питання: поставте його знову за хвилину",
  errorSlackRefused: "Slack відхилив відповідь ({error})",
  errorSlackAdminCheck: "не вдалося перевірити, чи ви адміністратор робочого простору ({error})",
  errorTelegramRefused: "Telegram відхилив запит бота ({error})",
  errorTelegramUnreachable: "бот не зміг зв’язатися з Telegram; спробуйте ще раз трохи згодом",
  errorTelegramAdminCheck:
    "не вдалося дізнатися в Telegram, чи ви тут адміністратор; спробуйте ще раз",

  channelNotEnabled: "У цьому каналі бот не ввімкнено.",
  userNotAllowed: "На жаль, вас немає в списку тих, кому дозволено користуватися цим ботом.",
  emptyQuestion: "Будь ласка, напишіть питання.",
  questionTooLong:
    "У вашому питанні {length, plural, one {# символ} few {# символи} many {# символів} other {# символу}}, а можна не більше {limit, number}. Будь ласка, скоротіть його.",
  slowDown:
    "Не так швидко: можна поставити {count, plural, one {# питання} few {# питання} many {# питань} other {# питання}} за {window, number} с. Спробуйте знову через {seconds, number} с.",
  onlyText: "Я розумію лише текстові повідомлення: будь ласка, напишіть своє питання.",

  helpIntro: "Питайте що завгодно або скористайтеся командою:",
  helpLine: "{usage}  {what}",
  helpHelp: "список команд",
  helpNew: "почати нову розмову в цій гілці",
  helpLanguage: "показати мову відповідей у цьому каналі",
  helpLanguageSet: "змінити її (адміністратори; {auto} скидає)",
  helpLeads: "ліди за останні дні (типово {days, number}), у каналі лідів",
  helpLeadsSubscribe: "оголошувати тут нові ліди (адміністратори); {unsubscribe} вимикає",
  unknownCommand: "Невідома команда {command}.",
  newConversation: "Починаємо заново: наступне питання відкриє нову розмову.",
  newOutsideThread:
    "Тут кожна гілка — окрема розмова: щоб почати заново, відкрийте нову гілку (згадайте мене або надішліть мені нове повідомлення) чи напишіть {new} після згадки всередині гілки.",
  languageNamed: "{name} ({code})",
  languageAuto: "мова кожного питання ({code})",
  languageShown:
    "Мова відповідей тут: {language}. Адміністратори можуть змінити її командою {command}.",
  languageShownDefault:
    "Мова відповідей тут: {language}, типова. Адміністратори можуть змінити її командою {command}.",
  languageSet: "Тепер мова відповідей тут: {language}.",
  languageReset: "Мову відповідей скинуто, тепер тут: {language}.",
  languageAdminOnly: "Змінити мову відповідей може лише адміністратор цього каналу.",
  languageUnknown: "невідомий код мови. Допустимі коди: {codes}",

  leadsUsage: "очікувалося {list}, {days} (від 1 до {max, number}), {subscribe} або {unsubscribe}",
  leadsNotSetUp: "Оголошення про ліди для цього бота не налаштовано.",
  leadsAdminOnly: "Увімкнути чи вимкнути оголошення про ліди можуть лише адміністратори бота.",
  leadsOnlyInLeadChannels:
    "Ліди показуються лише в каналах лідів. Адміністратор бота може зробити цей канал каналом лідів командою {command}.",
  leadsNone:
    "Немає лідів за {days, plural, one {останній # день} few {останні # дні} many {останні # днів} other {останні # дня}}.",
  leadsTooManyToCount:
    "Забагато лідів, щоб їх полічити: бот читає не більше {read, number} за раз, і всі прочитані старші, ніж {days, plural, one {# день} few {# дні} many {# днів} other {# дня}}.",
  leadsTitle:
    "{count, plural, one {# лід} few {# ліди} many {# лідів} other {# ліда}} за {days, plural, one {останній # день} few {останні # дні} many {останні # днів} other {останні # дня}}, спершу нові:",
  leadsTitleAtLeast:
    "Щонайменше {count, plural, one {# лід} few {# ліди} many {# лідів} other {# ліда}} за {days, plural, one {останній # день} few {останні # дні} many {останні # днів} other {останні # дня}} (більше, ніж бот читає за раз), спершу нові:",
  leadsMoreAtLeast: "…і ще щонайменше {count, number}.",
  leadsMoreOlder:
    "…і ще {count, plural, one {# старіший} few {# старіші} many {# старіших} other {# старішого}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — «{remark}»",
  leadsConfigured: "Цей канал отримує ліди за налаштуваннями бота ({variables}); змінюйте їх там.",
  leadsSubscribed: "Тепер цей канал отримує кожен новий лід.",
  leadsAlreadySubscribed: "Цей канал уже отримує кожен новий лід.",
  leadsUnsubscribed: "Цей канал більше не отримує оголошень про ліди.",
  leadsNotSubscribed: "Цей канал і не отримував оголошень про ліди.",
  leadTitle: "Новий лід",
  leadFallback: "Новий лід: {name}",
  leadName: "Ім’я",
  leadPhone: "Телефон",
  leadEmail: "Ел. пошта",
  leadRemark: "Коментар",
  leadTime: "Час",
  leadConversation: "Розмова",
  leadCaptured: "Отримано",
  leadCapturedOutside: "поза чатами, які обслуговує цей бот",
  leadCapturedPrivate: "в особистому чаті {platform} з {name}",
  leadCapturedBusiness: "у чаті {platform} бізнес-акаунта з {name}",
  leadCapturedPrivateUnnamed: "в особистому чаті {platform}",
  leadCapturedThreadUnnamed: "у треді {platform}",
  leadCapturedGroupUnnamed: "у групі {platform}",
  leadCapturedThread: "у треді {platform} в {where}",
  leadCapturedGroup: "у групі {platform} {where}",

  assistantGreeting:
    "Вітаю! Питайте що завгодно. Кожна гілка тут — окрема розмова; {command} покаже команди.",
  promptAbilities: "Що ти вмієш?",
  promptStart: "З чого почати?",
  promptSimpleTitle: "Поясни простіше",
  promptSimple: "Поясни кількома простими реченнями, на чому ти знаєшся.",
  statusThinking: "думає…",

  contextThread: "Раніше в цій гілці:",
  contextReply: "У відповідь на:",
  contextQuestion: "Питання:",

  menuHelp: "Список команд",
  menuNew: "Почати тут нову розмову",
  menuLanguage: "Показати мову відповідей (адміністратори: {command})",
  menuLeads: "Останні ліди; {command} вмикає оголошення тут",

  consoleThinking: "думаю…",
  consoleWelcome: "Спілкуйтеся з чат-ботом: напишіть питання або {command}, щоб побачити команди.",
  consoleSimulated:
    "(Відповіді дає вбудований симулятор чат-бота: задайте {url}, {key} і {uid}, щоб під’єднати свій.)",
  consoleKeys: "{stop} зупиняє відповідь; у рядку введення {stop} або {quit} завершує роботу.",
  consoleDropped:
    "({count, plural, one {# рядок, набраний під час відповіді, відкинуто} few {# рядки, набрані під час відповіді, відкинуто} many {# рядків, набраних під час відповіді, відкинуто} other {# рядка, набраного під час відповіді, відкинуто}})",
  stoppedBy: "⏹ зупинено: {name}",
  stopped: "⏹ зупинено",
  nothingToStop: "Нічого зупиняти: у цій гілці зараз не пишеться відповідь.",
  withdrawnBy: "⏹ відкликано: {name}. На це питання не буде відповіді",
  withdrawn: "⏹ відкликано: на це питання не буде відповіді",
  questionWithdrawn:
    "⏹ {count, plural, one {# питання в черзі відкликано.} few {# питання в черзі відкликано.} many {# питань у черзі відкликано.} other {# питання в черзі відкликано.}}",
  stopUsage: "очікувалося {stop}",
  stopRefused: "Зупинити цю відповідь може лише автор запитання або адміністратор каналу.",
  stopButton: "⏹ Стоп",
  voteThanks: "Дякуємо за {mark}!",
  voteChanged: "Тепер ваш голос — {mark}. Дякуємо!",
  voteTooLate: "Ця відповідь надто стара, щоб її оцінити.",
  feedbackAdminOnly: "Відгуки може переглядати лише адміністратор цього каналу.",
  feedbackUsage: "очікувалося {list} або {days} (від 1 до {max, number})",
  feedbackNoneHere:
    "За {days, plural, one {останній # день} few {останні # дні} many {останні # днів} other {останні # дня}} у цьому каналі немає оцінок відповідей.",
  feedbackNoneAll:
    "За {days, plural, one {останній # день} few {останні # дні} many {останні # днів} other {останні # дня}} у жодному каналі немає оцінок відповідей.",
  feedbackHere:
    "Оцінки відповідей у цьому каналі за {days, plural, one {останній # день} few {останні # дні} many {останні # днів} other {останні # дня}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "Оцінки відповідей в усіх каналах за {days, plural, one {останній # день} few {останні # дні} many {останні # днів} other {останні # дня}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop: "зупинити відповідь, що пишеться в цій гілці (автор запитання або адміністратор)",
  helpFeedback:
    "порахувати 👍 і 👎 під відповідями тут (адміністратори; типово за {days, plural, one {# день} few {# дні} many {# днів} other {# дня}})",
  menuStop: "Зупинити відповідь (у групі — дайте на неї відповідь)",
  menuFeedback: "Порахувати 👍 і 👎 під відповідями тут",
  claimButton: "Беру",
  releaseButton: "Звільнити",
  claimedBy: "Взяв(-ла) {name}, {time}",
  alreadyClaimed: "{name} уже взяв(-ла) цей лід: {time}.",
  youHaveIt: "Цей лід уже у вас.",
  onlyClaimerReleases: "Звільнити цей лід може лише {name}: він у цієї людини.",
  notClaimed: "Зараз цей лід ні в кого.",
  claimUnavailable: "Цей лід тут більше не можна взяти.",
  claimTryAgain: "Лід щойно перейшов до іншого: спробуйте ще раз.",
  listedClaim: "взяв(-ла) {name} ({time})",
  leadLabel: "{label}:",

  chatbotFailed: "{chatbot}: {reason}",
  helpChatbot: "показати, який чат-бот відповідає тут, та інших",
  helpChatbotUse: "спрямовувати нові розмови тут цьому чат-боту (адміністратори)",
  helpLeadsSubscribeChatbot: "оголошувати тут нові ліди цього чат-бота (адміністратори)",
  menuChatbot: "Показати чат-бота цього чату (адміністратори: {command})",
  chatbotShown:
    "Питання тут отримує {chatbot}. Чат-боти: {list}. Адміністратори можуть змінити його командою {command}.",
  chatbotShownDefault:
    "Питання тут отримує {chatbot}, типовий. Чат-боти: {list}. Адміністратори можуть змінити його командою {command}.",
  chatbotSet:
    "Тепер нові розмови тут веде {chatbot}. Розпочата розмова лишається зі своїм чат-ботом; {new} починає нову.",
  chatbotAdminOnly: "Вибрати чат-бота може лише адміністратор цього каналу.",
  chatbotUnknown: "Чат-бота з назвою {name} немає. Чат-боти: {list}.",
  chatbotUsage: "очікувалося {show} або {use}",
  chatbotHere: "Чат-бот цього каналу: {chatbot}.",
  leadsSubscribedTo: "Тепер цей канал отримує нові ліди чат-бота {chatbot}.",
  leadsAlreadySubscribedTo: "Цей канал уже отримує нові ліди чат-бота {chatbot}.",
  leadsUnsubscribedFrom: "Цей канал більше не отримує ліди чат-бота {chatbot}.",
  leadsNotSubscribedTo: "Цей канал і не отримував ліди чат-бота {chatbot}.",
  leadsOf: "Ліди чат-бота {chatbot}:",
  leadChatbot: "Чат-бот",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",

  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Поговорити",
  handBackButton: "Повернути боту",
  handoverTalking: "{name} спілкується з клієнтом (з {time})",
  handoverHandedBack: "Повернуто чат-боту: {time}",
  handoverJoined:
    "{name} з нашої команди тепер у цьому чаті. Чат-бот на паузі, доки йому не повернуть чат.",
  handoverEnded: "У цьому чаті знову відповідає чат-бот.",
  handoverCustomerLine: "💬 {name}: {text}",
  handoverCustomer: "Клієнт",
  handoverSellerLine: "{name} (відділ продажів): {text}",
  pausedBy: "⏹ призупинено: далі відповідає {name} з відділу продажів",
  handoverOnlyClaimer:
    "Спілкуватися з цим клієнтом може лише {name} (лід у цієї людини) або адміністратор бота.",
  handoverClaimFirst: "Спершу візьміть лід: тоді ви зможете поспілкуватися з клієнтом.",
  handoverNotOurs: "Розмова цього ліда ведеться в чаті, недоступному цьому боту.",
  handoverBusy: "{name} уже спілкується в чаті цього клієнта.",
  handoverNotOpen: "Зараз із цим клієнтом ніхто не спілкується.",
  handoverOver: "Цей чат знову в чат-бота: ваше повідомлення не надіслано.",
  handoverNotDelivered: "Не доставлено: {reason}",
  handBackNone: "У цьому чаті зараз не спілкується ніхто з компанії.",
  handBackAdminOnly: "Повернути чат-бота в цей чат може лише його адміністратор.",
  helpHandBack: "повернути чат-бота в чат, який узяв на себе працівник компанії (адміністратори)",
  menuHandBack: "Повернути чат-бота в цей чат",
};
