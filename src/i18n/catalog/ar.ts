import type { Messages } from "../messages.ts";

// No Latin letters here: commands, codes and product names come in as values, which the
// translator isolates so that they do not reorder the right-to-left sentence around them.
export const ar: Messages = {
  noAnswer: "(لا توجد إجابة)",
  truncated: "(تم اقتطاع الإجابة)",
  failed: "⚠️ {reason}",
  answerCut: "انقطعت الإجابة: {reason}",
  numberInLine: "⏳ هناك أسئلة كثيرة الآن: ترتيب سؤالك في قائمة الانتظار هو {place, number}",
  busy: "⏳ البوت مشغول جدًا الآن: يُرجى المحاولة مجددًا بعد دقيقة.",

  errorUnexpected: "حدث خطأ ما لدى البوت",
  errorApiKey: "رفض روبوت الدردشة مفتاح واجهة البرمجة ({status})",
  errorPermission:
    "رفض روبوت الدردشة الوصول ({status}): تتطلب الدردشة اشتراكًا مدفوعًا في حساب روبوت الدردشة",
  errorNotFound: "لم يُعثر على روبوت الدردشة ({status}): تحقّق من العنوان الأساسي ومعرّف البوت",
  errorBackendBusy: "روبوت الدردشة مشغول ({status})؛ يُرجى المحاولة مجددًا بعد قليل",
  errorBackendFailed: "تعطّلت خدمة روبوت الدردشة ({status})؛ يُرجى المحاولة مجددًا لاحقًا",
  errorBackendRefused: "رفض روبوت الدردشة الطلب ({status})",
  errorApi: "أعاد روبوت الدردشة خطأً (الرمز {code})",
  errorApiDetail: "أعاد روبوت الدردشة خطأً (الرمز {code}): {detail}",
  errorProtocol: "أرسل روبوت الدردشة ردًّا لا يستطيع هذا البوت قراءته",
  errorNoResponse: "لم يستجب روبوت الدردشة في الوقت المحدد",
  errorSilent: "توقّف روبوت الدردشة عن الإرسال",
  errorTooLong: "استغرق روبوت الدردشة أكثر من {duration}",
  errorUnreachable: "تعذّر الوصول إلى روبوت الدردشة",
  errorConnectionLost: "انقطع الاتصال",
  errorInterrupted: "تمت المقاطعة",
  errorStore: "مخزن بيانات البوت غير متاح الآن؛ يُرجى المحاولة مجددًا بعد قليل",
  errorPlatformRateLimit: "طلبت منصة الدردشة من البوت أن يبطئ",
  errorCannotPost: "لا يستطيع البوت النشر هنا",
  errorCannotPostBecause: "لا يستطيع البوت النشر هنا ({error})",
  errorRestarting: "يُعاد تشغيل البوت ولم يصل إلى سؤالك: يُرجى طرحه مجددًا بعد دقيقة",
  errorSlackRefused: "رفض سلاك الرد ({error})",
  errorSlackAdminCheck: "تعذّر التحقق مما إذا كنت مشرفًا على مساحة العمل ({error})",
  errorTelegramRefused: "رفض تيليجرام طلب البوت ({error})",
  errorTelegramUnreachable: "تعذّر على البوت الوصول إلى تيليجرام؛ يُرجى المحاولة مجددًا بعد قليل",
  errorTelegramAdminCheck: "تعذّر التحقق عبر تيليجرام مما إذا كنت مشرفًا هنا؛ يُرجى المحاولة مجددًا",

  channelNotEnabled: "هذا البوت غير مفعّل في هذه القناة.",
  userNotAllowed: "عذرًا، لست ضمن قائمة الأشخاص المسموح لهم باستخدام هذا البوت.",
  emptyQuestion: "يُرجى كتابة سؤال.",
  questionTooLong: "طول سؤالك {length, number} حرفًا، والحد الأقصى {limit, number}. يُرجى اختصاره.",
  slowDown:
    "على مهلك: يمكنك طرح {count, plural, zero {# سؤال} one {سؤال واحد} two {سؤالين} few {# أسئلة} many {# سؤالًا} other {# سؤال}} كل {window, number} ثانية. حاول مجددًا بعد {seconds, number} ثانية.",
  onlyText: "لا أستطيع قراءة سوى الرسائل النصية: يُرجى كتابة سؤالك.",

  helpIntro: "اسألني عن أي شيء، أو استخدم أمرًا:",
  helpLine: "{usage}  {what}",
  helpHelp: "يعرض قائمة الأوامر",
  helpNew: "يبدأ محادثة جديدة في هذا النقاش",
  helpLanguage: "يعرض لغة الإجابات في هذه القناة",
  helpLanguageSet: "يغيّرها (للمشرفين؛ {auto} يعيدها إلى الافتراضي)",
  helpLeads:
    "يعرض العملاء المحتملين في الأيام الأخيرة (افتراضيًا {days, number})، في قناة العملاء المحتملين",
  helpLeadsSubscribe: "يعلن هنا عن العملاء المحتملين الجدد (للمشرفين)؛ {unsubscribe} يوقف ذلك",
  unknownCommand: "أمر غير معروف: {command}.",
  newConversation: "بداية جديدة: سؤالك التالي يبدأ محادثة جديدة.",
  newOutsideThread:
    "كل نقاش هنا محادثة مستقلة: لتبدأ من جديد افتح نقاشًا جديدًا (اذكرني أو أرسل إليّ رسالة جديدة)، أو اكتب {new} بعد ذكري داخل نقاش.",
  languageNamed: "{name} ({code})",
  languageAuto: "لغة كل سؤال ({code})",
  languageShown: "لغة الإجابات هنا: {language}. يمكن للمشرفين تغييرها بالأمر {command}.",
  languageShownDefault:
    "لغة الإجابات هنا: {language} (الافتراضية). يمكن للمشرفين تغييرها بالأمر {command}.",
  languageSet: "أصبحت لغة الإجابات هنا: {language}.",
  languageReset: "أُعيد ضبط لغة الإجابات: لغة الإجابات هنا {language}.",
  languageAdminOnly: "لا يستطيع تغيير لغة الإجابات إلا مشرف هذه القناة.",
  languageUnknown: "رمز لغة غير معروف. الرموز المتاحة: {codes}",

  leadsUsage: "المتوقع: {list} أو {days} (من 1 إلى {max, number}) أو {subscribe} أو {unsubscribe}",
  leadsNotSetUp: "إعلانات العملاء المحتملين غير مُعدّة لهذا البوت.",
  leadsAdminOnly: "لا يستطيع تشغيل إعلانات العملاء المحتملين أو إيقافها إلا مشرفو البوت.",
  leadsOnlyInLeadChannels:
    "لا يُعرض العملاء المحتملون إلا في قنوات العملاء المحتملين. يستطيع أحد مشرفي البوت جعل هذه القناة منها بالأمر {command}.",
  leadsNone:
    "لا يوجد عملاء محتملون {days, plural, zero {اليوم} one {في اليوم الأخير} two {في اليومين الأخيرين} few {في الأيام الـ# الأخيرة} many {في الـ# يومًا الأخيرة} other {في الـ# يوم الأخيرة}}.",
  leadsTooManyToCount:
    "العملاء المحتملون أكثر من أن يُحصوا: يقرأ البوت {read, number} على الأكثر في كل مرة، وكل ما قرأه أقدم من {days, plural, zero {اليوم} one {اليوم الأخير} two {اليومين الأخيرين} few {الأيام الـ# الأخيرة} many {الـ# يومًا الأخيرة} other {الـ# يوم الأخيرة}}.",
  leadsTitle:
    "{count, plural, zero {لا عملاء محتملين} one {عميل محتمل واحد} two {عميلان محتملان} few {# عملاء محتملين} many {# عميلًا محتملًا} other {# عميل محتمل}} {days, plural, zero {اليوم} one {في اليوم الأخير} two {في اليومين الأخيرين} few {في الأيام الـ# الأخيرة} many {في الـ# يومًا الأخيرة} other {في الـ# يوم الأخيرة}}، الأحدث أولًا:",
  leadsTitleAtLeast:
    "ما لا يقل عن {count, plural, zero {# عميل محتمل} one {عميل محتمل واحد} two {عميلين محتملين} few {# عملاء محتملين} many {# عميلًا محتملًا} other {# عميل محتمل}} {days, plural, zero {اليوم} one {في اليوم الأخير} two {في اليومين الأخيرين} few {في الأيام الـ# الأخيرة} many {في الـ# يومًا الأخيرة} other {في الـ# يوم الأخيرة}} (أكثر مما يقرؤه البوت دفعة واحدة)، الأحدث أولًا:",
  leadsMoreAtLeast: "…وما لا يقل عن {count, number} غيرهم.",
  leadsMoreOlder:
    "…و{count, plural, zero {لا أقدم} one {واحد أقدم} two {اثنان أقدم} few {# أقدم} many {# أقدم} other {# أقدم}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — «{remark}»",
  leadsConfigured:
    "تتلقى هذه القناة العملاء المحتملين عبر إعدادات البوت ({variables})؛ غيّرها هناك.",
  leadsSubscribed: "أصبحت هذه القناة تتلقى كل عميل محتمل جديد.",
  leadsAlreadySubscribed: "هذه القناة تتلقى بالفعل كل عميل محتمل جديد.",
  leadsUnsubscribed: "لم تعد هذه القناة تتلقى إعلانات العملاء المحتملين.",
  leadsNotSubscribed: "لم تكن هذه القناة تتلقى إعلانات العملاء المحتملين.",
  leadTitle: "عميل محتمل جديد",
  leadFallback: "عميل محتمل جديد: {name}",
  leadName: "الاسم",
  leadPhone: "الهاتف",
  leadEmail: "البريد الإلكتروني",
  leadRemark: "ملاحظة",
  leadTime: "الوقت",
  leadConversation: "المحادثة",

  assistantGreeting:
    "مرحبًا! اسألني عن أي شيء. كل نقاش هنا محادثة مستقلة؛ والأمر {command} يعرض قائمة الأوامر.",
  promptAbilities: "ماذا تستطيع أن تفعل؟",
  promptStart: "من أين أبدأ؟",
  promptSimpleTitle: "اشرحها ببساطة",
  promptSimple: "اشرح في بضع جمل بسيطة ما الذي تعرفه.",
  statusThinking: "يفكّر…",

  contextThread: "في وقت سابق في هذه السلسلة:",
  contextReply: "ردًّا على:",
  contextQuestion: "السؤال:",

  menuHelp: "عرض قائمة الأوامر",
  menuNew: "بدء محادثة جديدة هنا",
  menuLanguage: "عرض لغة الإجابات (للمشرفين: {command})",
  menuLeads: "عرض العملاء المحتملين الأخيرين؛ {command} يعلن عنهم هنا",

  consoleThinking: "أفكّر…",
  consoleWelcome: "تحدّث مع روبوت الدردشة: اكتب سؤالًا، أو {command} لعرض الأوامر.",
  consoleSimulated:
    "(تأتي الإجابات من روبوت الدردشة المحاكى المدمج: اضبط {url} و{key} و{uid} لاستخدام روبوتك.)",
  consoleKeys: "{stop} يوقف الإجابة؛ وعند المؤشر يُنهي {stop} أو {quit} البرنامج.",
  consoleDropped:
    "({count, plural, zero {لم يُتجاهل أي سطر} one {تم تجاهل سطر واحد كُتب أثناء الإجابة} two {تم تجاهل سطرين كُتبا أثناء الإجابة} few {تم تجاهل # أسطر كُتبت أثناء الإجابة} many {تم تجاهل # سطرًا كُتبت أثناء الإجابة} other {تم تجاهل # سطر كُتبت أثناء الإجابة}})",
  stoppedBy: "⏹ أوقفه {name}",
  stopped: "⏹ توقّف",
  nothingToStop: "لا شيء لإيقافه: لا تُكتب أي إجابة في هذه السلسلة الآن.",
  withdrawnBy: "⏹ سحبه {name}: لن تتم الإجابة عن هذا السؤال",
  withdrawn: "⏹ سُحب: لن تتم الإجابة عن هذا السؤال",
  questionWithdrawn:
    "⏹ {count, plural, zero {لم يُسحب أي سؤال منتظر.} one {سُحب سؤالك المنتظر.} two {سُحب سؤالان منتظران.} few {سُحبت # أسئلة منتظرة.} many {سُحب # سؤالًا منتظرًا.} other {سُحب # سؤال منتظر.}}",
  stopUsage: "المتوقع {stop}",
  stopRefused: "لا يمكن إيقاف هذه الإجابة إلا لمن طرح السؤال أو لمشرف هذه القناة.",
  stopButton: "⏹ إيقاف",
  voteThanks: "شكرًا على {mark}!",
  voteChanged: "صار صوتك الآن {mark}. شكرًا!",
  voteTooLate: "هذه الإجابة أقدم من أن تُقيَّم.",
  feedbackAdminOnly: "لا يرى التقييمات إلا مشرف هذه القناة.",
  feedbackUsage: "المتوقع {list} أو {days} (من 1 إلى {max, number})",
  feedbackNoneHere:
    "لا أصوات على الإجابات في هذه القناة {days, plural, zero {اليوم} one {في اليوم الأخير} two {في اليومين الأخيرين} few {في الأيام الـ# الأخيرة} many {في الـ# يومًا الأخيرة} other {في الـ# يوم الأخيرة}}.",
  feedbackNoneAll:
    "لا أصوات على الإجابات في أي قناة {days, plural, zero {اليوم} one {في اليوم الأخير} two {في اليومين الأخيرين} few {في الأيام الـ# الأخيرة} many {في الـ# يومًا الأخيرة} other {في الـ# يوم الأخيرة}}.",
  feedbackHere:
    "الأصوات على الإجابات في هذه القناة {days, plural, zero {اليوم} one {في اليوم الأخير} two {في اليومين الأخيرين} few {في الأيام الـ# الأخيرة} many {في الـ# يومًا الأخيرة} other {في الـ# يوم الأخيرة}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "الأصوات على الإجابات في كل القنوات {days, plural, zero {اليوم} one {في اليوم الأخير} two {في اليومين الأخيرين} few {في الأيام الـ# الأخيرة} many {في الـ# يومًا الأخيرة} other {في الـ# يوم الأخيرة}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop: "يوقف الإجابة الجارية كتابتها في هذه السلسلة (صاحب السؤال أو مشرف)",
  helpFeedback: "يعدّ 👍 و👎 على الإجابات هنا (للمشرفين؛ افتراضيًا {days, number} أيام)",
  menuStop: "أوقف الإجابة الجارية (في مجموعة: ردّ عليها)",
  menuFeedback: "عدّ 👍 و👎 على الإجابات هنا",
  claimButton: "سأتولاه",
  releaseButton: "تخلَّ عنه",
  claimedBy: "تولّاه {name} في {time}",
  alreadyClaimed: "تولّى {name} هذا العميل المحتمل بالفعل، في {time}.",
  youHaveIt: "أنت تتولى هذا العميل المحتمل بالفعل.",
  onlyClaimerReleases: "لا يستطيع التخلي عن هذا العميل المحتمل إلا {name}، من تولّاه.",
  notClaimed: "لا أحد يتولى هذا العميل المحتمل الآن.",
  claimUnavailable: "لم يعد ممكنًا تولّي هذا العميل المحتمل من هنا.",
  claimTryAgain: "انتقل العميل المحتمل للتو إلى شخص آخر: حاول مرة أخرى.",
  listedClaim: "تولّاه {name} ({time})",
  leadLabel: "{label}:",

  chatbotFailed: "{chatbot}: {reason}",
  helpChatbot: "يعرض روبوت الدردشة الذي يجيب هنا، والروبوتات الأخرى",
  helpChatbotUse: "يوجّه المحادثات الجديدة هنا إلى روبوت الدردشة هذا (للمشرفين)",
  helpLeadsSubscribeChatbot: "يعلن هنا عن العملاء المحتملين الجدد لروبوت الدردشة هذا (للمشرفين)",
  menuChatbot: "عرض روبوت الدردشة في هذه الدردشة (للمشرفين: {command})",
  chatbotShown:
    "تذهب الأسئلة هنا إلى {chatbot}. روبوتات الدردشة: {list}. يمكن للمشرفين تغييره بالأمر {command}.",
  chatbotShownDefault:
    "تذهب الأسئلة هنا إلى {chatbot} (الافتراضي). روبوتات الدردشة: {list}. يمكن للمشرفين تغييره بالأمر {command}.",
  chatbotSet:
    "أصبحت المحادثات الجديدة هنا تذهب إلى {chatbot}. تبقى المحادثة الجارية مع روبوتها؛ {new} يبدأ محادثة جديدة.",
  chatbotAdminOnly: "لا يستطيع اختيار روبوت الدردشة إلا مشرف هذه القناة.",
  chatbotUnknown: "لا يوجد روبوت دردشة باسم {name}. روبوتات الدردشة: {list}.",
  chatbotUsage: "المتوقع: {show} أو {use}",
  chatbotHere: "روبوت الدردشة في هذه القناة: {chatbot}.",
  leadsSubscribedTo: "أصبحت هذه القناة تتلقى العملاء المحتملين الجدد لـ {chatbot}.",
  leadsAlreadySubscribedTo: "هذه القناة تتلقى بالفعل العملاء المحتملين الجدد لـ {chatbot}.",
  leadsUnsubscribedFrom: "لم تعد هذه القناة تتلقى العملاء المحتملين لـ {chatbot}.",
  leadsNotSubscribedTo: "لم تكن هذه القناة تتلقى العملاء المحتملين لـ {chatbot}.",
  leadsOf: "العملاء المحتملون لـ {chatbot}:",
  leadChatbot: "روبوت الدردشة",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",
};
